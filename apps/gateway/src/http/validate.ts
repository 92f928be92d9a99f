import { RpcError } from '@xchain/contracts';
import { violationsOf } from '@xchain/messaging';
import type { z } from 'zod';

/** Parses a request body with the operation's schema: INVALID_ARGUMENT naming every bad field. */
export function validateBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw RpcError.invalidArgument([{ field: '(body)', description: 'must be a JSON object' }]);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw RpcError.invalidArgument(violationsOf(parsed.error, body));
  return parsed.data;
}
