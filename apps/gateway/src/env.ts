import { BaseEnv, loadEnvOrExit, millis, port } from '@xchain/service-kit';
import { z } from 'zod';

export const GatewayEnv = BaseEnv.extend({
  GATEWAY_PORT: port(8080),
  /** Deadline of every NATS request the gateway makes; past it the client gets DEADLINE_EXCEEDED. */
  NATS_REQUEST_TIMEOUT_MS: millis(2000),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(10 * 1024 * 1024).default(64 * 1024),
  PUBLIC_BASE_URL: z.string().url().optional(),
});
export type GatewayEnv = z.output<typeof GatewayEnv>;

export function loadGatewayEnv(): GatewayEnv {
  return loadEnvOrExit('gateway', GatewayEnv);
}
