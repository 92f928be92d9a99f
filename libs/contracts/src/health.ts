import { z } from 'zod';

/** Body of `/livez` and `/readyz` on every service. */
export const HealthSchema = z.object({
  status: z.enum(['ok', 'unavailable']),
  service: z.string(),
  checks: z.record(z.string(), z.object({ ok: z.boolean(), detail: z.string().optional() })),
});
export type Health = z.infer<typeof HealthSchema>;
