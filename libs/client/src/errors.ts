import { type FieldViolation, type Status, StatusSchema } from '@xchain/contracts';

/** Every error the client throws derives from this, so a caller can catch the client's errors alone. */
export class XchainClientError extends Error {
  constructor(
    message: string,
    readonly operationId: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * A non-2xx answer carrying a `google.rpc.Status` (decisions D2), with the parts callers branch on
 * pulled out of its details: the ErrorInfo reason and metadata, the BadRequest field violations and
 * the RetryInfo delay (or the Retry-After header when the body has none).
 */
export class XchainApiError extends XchainClientError {
  /** The gRPC code number (3 INVALID_ARGUMENT, 5 NOT_FOUND, 16 UNAUTHENTICATED, …). */
  readonly code: number;
  readonly reason: string | undefined;
  readonly metadata: Readonly<Record<string, string>>;
  readonly fieldViolations: readonly FieldViolation[];
  readonly retryAfterSecs: number | undefined;

  constructor(
    operationId: string,
    readonly httpStatus: number,
    readonly status: Status,
    /** The answer's headers (Retry-After, the RateLimit-* ones); empty when built from a bare body. */
    readonly headers: Headers = new Headers(),
  ) {
    super(status.message, operationId);
    this.code = status.code;
    let reason: string | undefined;
    let metadata: Record<string, string> = {};
    let violations: FieldViolation[] = [];
    let retryAfter: number | undefined;
    for (const d of status.details) {
      if (d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo') {
        reason = d.reason;
        metadata = d.metadata ?? {};
      } else if (d['@type'] === 'type.googleapis.com/google.rpc.BadRequest') {
        violations = d.field_violations;
      } else {
        retryAfter = Number(d.retry_delay.slice(0, -1));
      }
    }
    const retryHeader = headers.get('retry-after');
    const header = retryHeader === null ? NaN : Number(retryHeader);
    this.reason = reason;
    this.metadata = metadata;
    this.fieldViolations = violations;
    this.retryAfterSecs = retryAfter ?? (Number.isFinite(header) ? header : undefined);
  }

  /** The fields the BadRequest detail names, in order. */
  get fields(): string[] {
    return this.fieldViolations.map((v) => v.field);
  }

  /** Builds the error from a raw error body; undefined when the body is not a Status. */
  static fromBody(operationId: string, httpStatus: number, body: unknown, headers?: Headers): XchainApiError | undefined {
    const parsed = StatusSchema.safeParse(body);
    return parsed.success ? new XchainApiError(operationId, httpStatus, parsed.data, headers) : undefined;
  }
}

/**
 * The server answered, but not as the contract says: a 2xx body its response schema refuses (the
 * client and the server drifted apart) or an error body that is not a Status (a proxy's page).
 */
export class XchainResponseError extends XchainClientError {
  constructor(
    operationId: string,
    message: string,
    readonly httpStatus: number,
    readonly body: unknown,
  ) {
    super(`${operationId}: ${message}`, operationId);
  }
}

/** The request never got an answer: connection refused or reset, DNS failure. */
export class XchainNetworkError extends XchainClientError {
  constructor(operationId: string, cause: unknown) {
    super(`${operationId}: request failed: ${cause instanceof Error ? cause.message : String(cause)}`, operationId, { cause });
  }
}

/** No complete answer within the client's `timeoutMs` (headers and body together). */
export class XchainTimeoutError extends XchainClientError {
  constructor(
    operationId: string,
    readonly timeoutMs: number,
  ) {
    super(`${operationId}: no answer within ${timeoutMs} ms`, operationId);
  }
}
