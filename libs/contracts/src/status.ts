import { z } from 'zod';

/** gRPC status codes used on the wire (decisions D2). */
export const Code = {
  OK: 0,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;
export type CodeName = keyof typeof Code;
export type CodeNumber = (typeof Code)[CodeName];

/** grpc-gateway's code → HTTP status mapping, restricted to the codes we emit. */
export const HTTP_STATUS_BY_CODE: Readonly<Record<number, number>> = {
  [Code.OK]: 200,
  [Code.INVALID_ARGUMENT]: 400,
  [Code.DEADLINE_EXCEEDED]: 504,
  [Code.NOT_FOUND]: 404,
  [Code.ALREADY_EXISTS]: 409,
  [Code.PERMISSION_DENIED]: 403,
  [Code.RESOURCE_EXHAUSTED]: 429,
  [Code.FAILED_PRECONDITION]: 400,
  [Code.UNIMPLEMENTED]: 501,
  [Code.INTERNAL]: 500,
  [Code.UNAVAILABLE]: 503,
  [Code.UNAUTHENTICATED]: 401,
};

export function httpStatusOf(code: number): number {
  return HTTP_STATUS_BY_CODE[code] ?? 500;
}

export const ERROR_DOMAIN = 'xchain.api';

export const ErrorInfoSchema = z.object({
  '@type': z.literal('type.googleapis.com/google.rpc.ErrorInfo'),
  reason: z.string().regex(/^[A-Z][A-Z0-9_]*$/),
  domain: z.string(),
  metadata: z.record(z.string(), z.string()).optional(),
});
export const BadRequestSchema = z.object({
  '@type': z.literal('type.googleapis.com/google.rpc.BadRequest'),
  field_violations: z.array(z.object({ field: z.string(), description: z.string() })),
});
export const RetryInfoSchema = z.object({
  '@type': z.literal('type.googleapis.com/google.rpc.RetryInfo'),
  retry_delay: z.string().regex(/^\d+(\.\d+)?s$/),
});
export const StatusDetailSchema = z.discriminatedUnion('@type', [ErrorInfoSchema, BadRequestSchema, RetryInfoSchema]);
export type StatusDetail = z.infer<typeof StatusDetailSchema>;

/** `google.rpc.Status`: the error body of every operation, over HTTP and over NATS. */
export const StatusSchema = z
  .object({
    code: z.number().int().min(1).max(16),
    message: z.string(),
    details: z.array(StatusDetailSchema),
  })
  .meta({ id: 'Status', description: 'google.rpc.Status error body (decisions D2).' });
export type Status = z.infer<typeof StatusSchema>;

export interface FieldViolation {
  field: string;
  description: string;
}

export function errorInfo(reason: string, metadata?: Record<string, string>): StatusDetail {
  return {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason,
    domain: ERROR_DOMAIN,
    ...(metadata && Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

export function badRequest(violations: FieldViolation[]): StatusDetail {
  return { '@type': 'type.googleapis.com/google.rpc.BadRequest', field_violations: violations };
}

export function retryInfo(seconds: number): StatusDetail {
  return { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retry_delay: `${Math.max(0, Math.ceil(seconds))}s` };
}

/**
 * An error that carries a complete Status. Services throw it; the messaging layer and the
 * gateway turn it into the wire body unchanged, so nobody maps errors per service.
 */
export class RpcError extends Error {
  readonly status: Status;

  constructor(code: CodeNumber, message: string, details: StatusDetail[] = []) {
    super(message);
    this.name = 'RpcError';
    this.status = { code, message, details };
  }

  static fromStatus(status: Status): RpcError {
    return new RpcError(status.code as CodeNumber, status.message, status.details);
  }

  static invalidArgument(violations: FieldViolation[], reason = 'INVALID_REQUEST'): RpcError {
    const first = violations[0];
    const message = first ? `${first.field}: ${first.description}` : 'invalid request';
    return new RpcError(Code.INVALID_ARGUMENT, message, [errorInfo(reason), badRequest(violations)]);
  }

  static unavailable(message: string, reason: string, retryAfterSeconds = 1, metadata?: Record<string, string>): RpcError {
    return new RpcError(Code.UNAVAILABLE, message, [errorInfo(reason, metadata), retryInfo(retryAfterSeconds)]);
  }

  static deadlineExceeded(message: string, reason: string): RpcError {
    return new RpcError(Code.DEADLINE_EXCEEDED, message, [errorInfo(reason)]);
  }

  static internal(): RpcError {
    return new RpcError(Code.INTERNAL, 'internal error', [errorInfo('INTERNAL')]);
  }

  static notFound(message: string, reason = 'NOT_FOUND'): RpcError {
    return new RpcError(Code.NOT_FOUND, message, [errorInfo(reason)]);
  }
}
