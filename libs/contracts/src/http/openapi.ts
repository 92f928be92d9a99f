import { z } from 'zod';
import { StatusSchema } from '../status';
import type { HttpOperation } from './operation';

type Json = Record<string, unknown>;

const ERROR_RESPONSES: Record<string, string> = {
  '400': 'INVALID_ARGUMENT or FAILED_PRECONDITION',
  '401': 'UNAUTHENTICATED',
  '403': 'PERMISSION_DENIED',
  '404': 'NOT_FOUND',
  '429': 'RESOURCE_EXHAUSTED',
  '501': 'UNIMPLEMENTED',
  '503': 'UNAVAILABLE',
  '504': 'DEADLINE_EXCEEDED',
};

const COMPONENTS = '#/components/schemas/';

/** Adds a named schema to components; the same name for two different schemas is a contract bug. */
function addComponent(components: Json, name: string, def: Json): void {
  const existing = components[name];
  if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(def)) {
    throw new Error(`OpenAPI: two different schemas are named ${name} (an id reused, or one schema differing as request and response)`);
  }
  components[name] = def;
}

/**
 * JSON Schema (2020-12, as OpenAPI 3.1 uses) of a zod schema; named schemas (a registry `id`) go
 * to components and are referenced. zod puts every named schema under `$defs`, the root included:
 * for a named root it answers only `{ $ref: '#/$defs/<id>' }`, so the definition is the `$defs`
 * entry and the root is already the reference to return.
 */
function schemaOf(schema: z.ZodType, io: 'input' | 'output', components: Json): Json {
  const registry = z.globalRegistry;
  const raw = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any', metadata: registry });
  // zod names shared schemas under $defs; OpenAPI keeps them under components.
  const json = JSON.parse(JSON.stringify(raw).replaceAll('"#/$defs/', `"${COMPONENTS}`)) as Json & {
    $defs?: Record<string, Json>;
  };
  const { $defs, $schema: _ignored, ...rest } = json;
  for (const [name, def] of Object.entries($defs ?? {})) addComponent(components, name, def);
  const id = registry.get(schema)?.id;
  if (typeof id !== 'string') return rest;
  const ref = { $ref: `${COMPONENTS}${id}` };
  const isRefToItself = Object.keys(rest).length === 1 && rest.$ref === ref.$ref;
  // A zod that inlines a named root instead: that inline schema is the definition.
  if (!isRefToItself) addComponent(components, id, rest);
  if (!(id in components)) throw new Error(`OpenAPI: zod gave no definition of the named schema ${id}`);
  return ref;
}

function parametersOf(op: HttpOperation, components: Json): Json[] {
  const params: Json[] = [];
  const add = (where: 'path' | 'query', obj: z.ZodObject | undefined) => {
    if (!obj) return;
    for (const [name, field] of Object.entries(obj.shape)) {
      params.push({
        name,
        in: where,
        required: where === 'path' || !(field as z.ZodType).safeParse(undefined).success,
        schema: schemaOf(field as z.ZodType, 'input', components),
      });
    }
  };
  add('path', op.pathParams);
  add('query', op.query);
  if (op.auth === 'optional_api_key') {
    params.push({ name: 'x-api-key', in: 'header', required: false, schema: { type: 'string' } });
  }
  if (op.idempotent) {
    params.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        "Makes a retry safe: the same key with the same body answers, for 24 hours, exactly as the first request did (status, body and `Idempotent-Replayed: true`). Keys are scoped to the caller (the API key's partner, or the client IP without a key). 1 to 255 printable ASCII characters (a UUID v4 is recommended); a bad key is 400 `INVALID_IDEMPOTENCY_KEY`. Answers below 500 are kept; after a 5xx or a timeout a retry with the key runs again.",
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
    });
  }
  return params;
}

export interface OpenApiInfo {
  title: string;
  version: string;
  serverUrl: string;
}

/** Builds the OpenAPI 3.1 document of the given operations from their zod schemas. */
export function buildOpenApiDocument(operations: readonly HttpOperation[], info: OpenApiInfo): Json {
  const components: Json = {};
  const paths: Record<string, Record<string, Json>> = {};
  const statusRef = schemaOf(StatusSchema, 'output', components);
  for (const op of operations) {
    const responses: Json = {
      '200': op.csv
        ? {
            description: 'OK: CSV (RFC 4180) with a header row',
            content: { 'text/csv': { schema: { type: 'string' } } },
          }
        : op.eventStream
          ? {
              description: 'OK: server-sent events, each `data` one of these',
              content: { 'text/event-stream': { schema: schemaOf(op.response, 'output', components) } },
            }
          : { description: 'OK', content: { 'application/json': { schema: schemaOf(op.response, 'output', components) } } },
      default: { description: 'Error (google.rpc.Status)', content: { 'application/json': { schema: statusRef } } },
    };
    if (op.idempotent) {
      responses['409'] = {
        description:
          'ALREADY_EXISTS, with an Idempotency-Key: `IDEMPOTENCY_KEY_REUSED` (the key was used for another body or operation), or `IDEMPOTENCY_REQUEST_IN_PROGRESS` (a request with the key is still running; retry after `Retry-After`).',
        headers: { 'Retry-After': { description: 'Seconds to wait (IDEMPOTENCY_REQUEST_IN_PROGRESS).', schema: { type: 'integer' } } },
        content: { 'application/json': { schema: statusRef } },
      };
    }
    if (op.cacheable) responses['304'] = { description: 'Not modified (If-None-Match matched the ETag).' };
    for (const [status, description] of Object.entries(ERROR_RESPONSES)) {
      responses[status] = { description, content: { 'application/json': { schema: statusRef } } };
    }
    const operation: Json = {
      operationId: op.operationId,
      summary: op.summary,
      tags: [op.tag],
      parameters: parametersOf(op, components),
      responses,
      ...(op.description ? { description: op.description } : {}),
      ...(op.served ? {} : { 'x-not-served': true, description: 'Not yet served by this build: answers 501 UNIMPLEMENTED.' }),
      'x-rate-limit-points': op.points ?? 1,
      ...(op.auth === 'bearer' ? { security: [{ bearer: [] }] } : {}),
      ...(op.auth === 'optional_api_key' ? { security: [{}, { apiKey: [] }] } : {}),
    };
    if (op.body) {
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: schemaOf(op.body, 'input', components) } },
      };
    }
    (paths[`/json${op.path}`] ??= {})[op.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Partner session token.' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Partner API key: its own rate limit, no keyless spread.' },
      },
    },
  };
}
