import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@xchain/stack';
import type { DevSolana } from '@xchain/solana-standin';

/**
 * Writes the seeded registry (config/registry.json) to `file` with every Solana chain naming the
 * stand-in's dev vault and fee payer, as `npm start` seeds it, and returns the file (a stack's
 * `registryFile`).
 */
export function devSolanaRegistry(sol: DevSolana, file: string): string {
  const registry = JSON.parse(readFileSync(join(ROOT, 'config/registry.json'), 'utf8')) as {
    chains: { vm: string; deposit_target: string; fee_payer?: string }[];
  };
  for (const c of registry.chains.filter((x) => x.vm === 'svm')) {
    c.deposit_target = sol.serviceEnv['DEV_SOLANA_VAULT']!;
    c.fee_payer = sol.serviceEnv['DEV_SOLANA_FEE_PAYER']!;
  }
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, JSON.stringify(registry));
  return file;
}
