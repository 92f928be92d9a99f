import { z } from 'zod';

/** The environment of the `migrate` image (migrate-job.ts): each service's database and the registry to seed. */
export const MigrateJobEnv = z.object({
  QUOTE_ENGINE_DATABASE_URL: z.string().url(),
  PARTNER_SERVICE_DATABASE_URL: z.string().url(),
  GASLESS_RELAYER_DATABASE_URL: z.string().url(),
  /** The registry to seed (relative to the working directory); `none` skips the seed. */
  REGISTRY_FILE: z.string().min(1).default('config/registry.json'),
  /** Deadline of each step. */
  MIGRATE_STEP_TIMEOUT_MS: z.coerce.number().int().min(1000).max(3_600_000).default(120_000),
});
export type MigrateJobEnv = z.output<typeof MigrateJobEnv>;
