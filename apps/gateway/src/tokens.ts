import { token } from '@xchain/service-kit';
import type { GatewayEnv } from './env';

/** The gateway's parsed environment, for the few classes that read it whole. */
export const GATEWAY_ENV = token<GatewayEnv>('GATEWAY_ENV');
