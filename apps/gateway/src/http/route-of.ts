import type { HttpOperation } from '@xchain/contracts';

/**
 * Fastify's route pattern of an operation: `/json/v1/partner/sessions/:id`. Every route the
 * gateway registers for an operation is at this pattern, and the access hook finds the operation
 * of a request by it, so they cannot drift apart.
 */
export const routeOf = (op: HttpOperation) => `/json${op.path.replace(/\{(\w+)\}/g, ':$1')}`;
