import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type AuthMode = 'none' | 'optional_api_key' | 'bearer';

/**
 * One public HTTP operation. The gateway routes and validates from this table and the OpenAPI
 * document is generated from it, so the document cannot drift from what is enforced.
 */
export interface HttpOperation {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** Path under `/json`, with `{param}` placeholders. */
  readonly path: string;
  readonly summary: string;
  readonly auth: AuthMode;
  readonly tag: string;
  readonly body?: z.ZodType;
  readonly query?: z.ZodObject;
  readonly pathParams?: z.ZodObject;
  readonly response: z.ZodType;
  /** Served by this build; an unserved operation answers UNIMPLEMENTED. */
  readonly served: boolean;
  /** Rate-limit points one call costs (decisions D10); 1 when absent. */
  readonly points?: number;
  /** Longer description for the API document. */
  readonly description?: string;
  /** Supports ETag / If-None-Match. */
  readonly cacheable?: boolean;
  /** Answers a `text/event-stream` whose events carry `response` as data (server-sent events). */
  readonly eventStream?: boolean;
}
