import { z } from 'zod';
import { defineRpc } from '../rpc';
import { GetQuoteRequest } from '../quoting/quote-request';
import { buildOpenApiDocument } from './openapi';
import type { HttpOperation } from './operation';
import { HTTP_OPERATIONS } from './operations';
import { GaslessOrderResultSchema, SubmitGaslessOrderRequest } from './schemas/gasless';

type Json = Record<string, any>;
const doc = buildOpenApiDocument(HTTP_OPERATIONS, { title: 't', version: '1', serverUrl: 'http://gw' }) as Json;
const schemas = doc['components'].schemas as Record<string, Json>;

/** The value a local `$ref` (a JSON pointer into the document) points at, or undefined. */
function pointAt(ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let at: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (at === null || typeof at !== 'object' || !Object.hasOwn(at, key)) return undefined;
    at = (at as Json)[key];
  }
  return at;
}

/** A schema with its `$ref`s followed until one that is not only a reference (throws on a loop). */
function deref(schema: Json): Json {
  const seen = new Set<string>();
  let at = schema;
  while (typeof at['$ref'] === 'string' && Object.keys(at).length === 1) {
    if (seen.has(at['$ref'])) throw new Error(`$ref loop through ${[...seen].join(' -> ')}`);
    seen.add(at['$ref']);
    at = pointAt(at['$ref']) as Json;
  }
  return at;
}

/** Every `$ref` in the document, with where it sits. */
function refsOf(node: unknown, where = '#'): { where: string; ref: string }[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => refsOf(item, `${where}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, v]) =>
    k === '$ref' && typeof v === 'string' ? [{ where, ref: v }] : refsOf(v, `${where}/${k}`),
  );
}

function operation(operationId: string): Json {
  for (const methods of Object.values(doc['paths'] as Record<string, Record<string, Json>>))
    for (const op of Object.values(methods)) if (op['operationId'] === operationId) return op;
  throw new Error(`no operation ${operationId} in the document`);
}
const requestSchema = (id: string) => deref(operation(id)['requestBody'].content['application/json'].schema);
const responseSchema = (id: string, status = '200') => deref(operation(id)['responses'][status].content['application/json'].schema);

describe('buildOpenApiDocument', () => {
  it('defines every component schema, none as a bare reference to itself', () => {
    const selfRefs = Object.entries(schemas)
      .filter(([name, s]) => Object.keys(s).length === 1 && s['$ref'] === `#/components/schemas/${name}`)
      .map(([name]) => name);
    expect(selfRefs).toEqual([]);
    // each one describes something: a type, a constant, an enumeration or a composition of those
    const empty = Object.entries(schemas)
      .filter(([, s]) => !['type', 'const', 'enum', 'anyOf', 'oneOf', 'allOf'].some((k) => k in deref(s)))
      .map(([name]) => name);
    expect(empty).toEqual([]);
  });

  it('has every $ref resolve inside the document', () => {
    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(50);
    expect(refs.filter(({ ref }) => pointAt(ref) === undefined)).toEqual([]);
    // to a definition, not through references back to itself
    for (const { ref } of refs) expect(deref({ $ref: ref })).not.toHaveProperty('$ref');
    // and every component is reachable from an operation (none left over from an overwritten definition)
    const reached = new Set(refs.map(({ ref }) => ref.replace('#/components/schemas/', '')));
    expect(Object.keys(schemas).filter((name) => !reached.has(name))).toEqual([]);
  });

  it('describes the GetQuote request and answer in full', () => {
    const body = requestSchema('GetQuote');
    expect(body).toMatchObject({ type: 'object' });
    expect(Object.keys(body['properties'])).toEqual(Object.keys(GetQuoteRequest.shape));
    expect(body['required']).toEqual(expect.arrayContaining(['src_chain', 'dst_chain', 'amount', 'recipient', 'refund_address']));
    expect(body['properties'].amount).toMatchObject({ type: 'string' });

    // One of `cross_chain` or `same_chain_swap`, each a described quote with its hash and order.
    const quote = responseSchema('GetQuote');
    const branches = (quote['anyOf'] ?? quote['oneOf']) as Json[];
    expect(branches.map((b) => Object.keys(b['properties']))).toEqual([['cross_chain'], ['same_chain_swap']]);
    for (const b of branches) {
      const inner = deref(Object.values(b['properties'])[0] as Json);
      expect(inner['properties']).toHaveProperty('quote_hash');
      expect(deref(inner['properties'].order)['properties']).toHaveProperty('amount_in');
    }
    expect(deref(responseSchema('PreviewQuote'))['properties']).toHaveProperty('amount_out');
  });

  it('describes the SubmitGaslessOrder request and answer in full', () => {
    const body = requestSchema('SubmitGaslessOrder');
    expect(Object.keys(body['properties'])).toEqual(Object.keys(SubmitGaslessOrderRequest.shape));
    expect(body['required']).toEqual(['quote_hash']);
    expect(deref(body['properties'].evm)['required']).toEqual(['owner', 'permit2_nonce', 'deadline', 'signature']);
    const result = responseSchema('SubmitGaslessOrder');
    expect(Object.keys(result['properties'])).toEqual(Object.keys(GaslessOrderResultSchema.shape));
    expect(result['properties'].status).toMatchObject({ enum: ['queued', 'submitted', 'confirmed', 'failed'] });
  });

  it('describes every JSON request and answer, errors as google.rpc.Status', () => {
    for (const methods of Object.values(doc['paths'] as Record<string, Record<string, Json>>)) {
      for (const op of Object.values(methods)) {
        const described = (schema: Json) => ['type', 'anyOf', 'oneOf'].some((k) => k in deref(schema));
        const body = op['requestBody']?.content['application/json']?.schema;
        if (body) expect([op['operationId'], described(body)]).toEqual([op['operationId'], true]);
        const ok = op['responses']['200'].content;
        const answer = (ok['application/json'] ?? ok['text/event-stream'] ?? ok['text/csv']).schema;
        expect([op['operationId'], described(answer)]).toEqual([op['operationId'], true]);
        expect(deref(op['responses']['400'].content['application/json'].schema)['properties']).toHaveProperty('details');
      }
    }
  });

  it('refuses two different schemas under one name instead of publishing either', () => {
    const Defaulted = z.object({ page_size: z.number().default(50) }).meta({ id: 'OpenApiSpecDefaulted' });
    const rpc = defineRpc('partner.v1.openapi_spec_echo', Defaulted, Defaulted, { access: 'partner' });
    // as a request `page_size` may be left out, as an answer it is always there: two schemas, one name
    const echo = {
      operationId: 'Echo',
      method: 'POST',
      path: '/v1/echo',
      summary: 's',
      auth: 'bearer',
      tag: 't',
      body: Defaulted,
      response: Defaulted,
      rpc,
      served: true,
    } as HttpOperation;
    expect(() => buildOpenApiDocument([echo], { title: 't', version: '1', serverUrl: 'http://gw' })).toThrow(
      /two different schemas are named OpenApiSpecDefaulted/,
    );
  });
});
