import { z } from 'zod';

/**
 * Who is calling, as the gateway established it. It rides in the `x-caller` NATS header so every
 * service prices and authorises with the same view (keyless requests carry the extra spread).
 * Only the gateway's NATS user may publish public and partner subjects (D14), so this view can be
 * trusted there; on internal and operator subjects it is informative only: the bus alone decides
 * who may send those, never this header.
 */
export const CallerContextSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('keyless'), client_ip: z.string() }),
  z.object({
    kind: z.literal('api_key'),
    client_ip: z.string(),
    key_id: z.string(),
    tier: z.string(),
    partner_id: z.string(),
  }),
  z.object({ kind: z.literal('partner_session'), client_ip: z.string(), partner_id: z.string(), session_id: z.string() }),
  z.object({ kind: z.literal('internal'), service: z.string() }),
]);
export type CallerContext = z.infer<typeof CallerContextSchema>;

export const CALLER_HEADER = 'x-caller';
