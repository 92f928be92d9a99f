import { z } from 'zod';
import { defineRpc } from '../rpc';
import { ChainName, Rfc3339 } from '../wire';
import { type GaslessStatus, GaslessOrderResultSchema, GaslessOrderViewSchema, SubmitGaslessOrderRequest } from '../http/schemas/gasless';

/** SubmitGaslessOrder: every check before gas is spent, then `queued` (or the one order's current state). */
export const SubmitGaslessOrderRpc = defineRpc('gasless.v1.submit', SubmitGaslessOrderRequest, GaslessOrderResultSchema, {
  access: 'public',
});

/** The relay state of one gasless order; NOT_FOUND when it was never submitted. */
export const GetGaslessOrderRpc = defineRpc(
  'gasless.v1.get',
  z.object({ quote_hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/) }),
  GaslessOrderViewSchema,
  { access: 'internal', callers: ['quote-engine'] },
);

/** Relay status changes, published by the relayer on JetStream for the rest of the system. */
export const GASLESS_EVENTS_STREAM = 'GASLESS_EVENTS_V1';
export const GASLESS_EVENT_SUBJECTS = 'gasless.v1.events.*';
export const gaslessEventSubject = (status: GaslessStatus) => `gasless.v1.events.${status}`;

export const GaslessEventSchema = GaslessOrderViewSchema.extend({ chain: ChainName, at: Rfc3339 });
export type GaslessEvent = z.infer<typeof GaslessEventSchema>;
