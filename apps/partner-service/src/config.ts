import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { token } from '@xchain/service-kit';
import { z } from 'zod';

const PartnersConfigSchema = z
  .object({
    /** Tier name → points per minute of a key in that tier. */
    tiers: z.record(z.string().regex(/^[a-z][a-z0-9_-]*$/), z.number().int().min(1).max(1_000_000)),
    default_tier: z.string(),
    default_max_keys: z.number().int().min(1).max(100),
    session_ttl_secs: z.number().int().min(60),
    funding: z.object({ chain: z.string(), router_address: z.string(), tokens: z.array(z.string()).min(1) }),
    voucher_routers: z.record(z.string(), z.string()),
  })
  .refine((c) => c.default_tier in c.tiers, { message: 'default_tier must be one of tiers' });
export type PartnersConfig = z.infer<typeof PartnersConfigSchema>;

export const PARTNERS_CONFIG = token<PartnersConfig>('PARTNERS_CONFIG');

/** Relative paths resolve from the repository root (or the working directory outside a checkout). */
export function loadPartnersConfig(path: string): PartnersConfig {
  const file = isAbsolute(path) ? path : join(repoRoot() ?? process.cwd(), path);
  return PartnersConfigSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
}

function repoRoot(from: string = __dirname): string | undefined {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'nx.json'))) return dir;
  }
  return undefined;
}
