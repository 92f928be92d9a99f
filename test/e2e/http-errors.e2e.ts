import { Validator } from '@seriousme/openapi-schema-validator';
import { CLIENT_OPERATIONS } from '@xchain/client';
import { HTTP_OPERATIONS, StatusSchema, type Status } from '@xchain/contracts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { expectApiError, gatewayClient } from '../support/http';
import { PartnerSession } from '../support/partner-session';

jest.setTimeout(60_000);

/**
 * The bad paths of the gateway: each a documented 4xx in the google.rpc.Status shape. Most send
 * what no typed client would (broken JSON, wrong methods, bad escapes), so they use fetch; the
 * ones a client could send go through it.
 */
describe('gateway error model over HTTP', () => {
  let e2e: E2eStack;
  beforeAll(async () => {
    e2e = await startE2eStack({ BODY_LIMIT_BYTES: '4096' });
  });
  afterAll(async () => {
    await e2e?.stop();
  });

  async function status(res: Response): Promise<Status & { reason?: string }> {
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = StatusSchema.parse(await res.json());
    const info = body.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo');
    return { ...body, reason: info && 'reason' in info ? info.reason : undefined };
  }

  const firstPost = HTTP_OPERATIONS.find((o) => o.method === 'POST');

  it('answers an unknown path with NOT_FOUND', async () => {
    const res = await fetch(`${e2e.gatewayUrl}/json/v1/nothing-here`);
    expect(res.status).toBe(404);
    expect(await status(res)).toMatchObject({ code: 5, reason: 'ROUTE_NOT_FOUND' });
  });

  it('answers a wrong method with 405 and an Allow header', async () => {
    const res = await fetch(`${e2e.gatewayUrl}/json/v1/tokens`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect(await status(res)).toMatchObject({ code: 12, reason: 'METHOD_NOT_ALLOWED' });
  });

  it('answers a wrong method on a quote route (served on Fastify directly, quote.routes.ts) the same way', async () => {
    const res = await fetch(`${e2e.gatewayUrl}/json/v1/quote/preview`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await status(res)).toMatchObject({ code: 12, reason: 'METHOD_NOT_ALLOWED' });
  });

  (firstPost ? it : it.skip)('answers malformed JSON with INVALID_ARGUMENT', async () => {
    const res = await fetch(`${e2e.gatewayUrl}/json${firstPost!.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"src_chain": ',
    });
    expect(res.status).toBe(400);
    expect(await status(res)).toMatchObject({ code: 3, reason: 'MALFORMED_JSON' });
  });

  it('takes an empty body sent as application/json as no body (a DELETE, a bodyless POST); a body an operation needs is still asked for', async () => {
    const partner = await PartnerSession.create(e2e, 'empty-body@example.com');
    const { id: keyId } = (await partner.session.createPartnerKey({ name: 'to-disable' })).key;
    // What many HTTP clients send on every request: the JSON content type, and no body.
    const send = (method: string, path: string) =>
      fetch(`${e2e.gatewayUrl}/json${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${partner.token}` },
        body: '',
      });
    const removed = await send('DELETE', '/v1/partner/webhook');
    expect(removed.status).toBe(200);
    expect(await removed.json()).toEqual({});
    const disabled = await send('POST', `/v1/partner/keys/${keyId}/disable`);
    expect(disabled.status).toBe(200);
    expect(await disabled.json()).toMatchObject({ id: keyId, disabled: true });

    const noBody = await send('POST', '/v1/quote/preview');
    expect(noBody.status).toBe(400);
    const refused = await status(noBody);
    expect(refused).toMatchObject({ code: 3, reason: 'INVALID_REQUEST' });
    expect(refused.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field_violations: [{ field: '(body)', description: 'must be a JSON object' }] })]),
    );
    // Blank is not empty: still not JSON.
    const blank = await fetch(`${e2e.gatewayUrl}/json/v1/quote/preview`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: ' ',
    });
    expect(await status(blank)).toMatchObject({ code: 3, reason: 'MALFORMED_JSON' });
  });

  (firstPost ? it : it.skip)('answers a non-JSON content type with 415', async () => {
    const res = await fetch(`${e2e.gatewayUrl}/json${firstPost!.path}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'src_chain=ethereum',
    });
    expect(res.status).toBe(415);
    expect(await status(res)).toMatchObject({ code: 3, reason: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('answers a urlencoded form body with 415, on PreviewQuote and on SubmitGaslessOrder alike', async () => {
    // A form body used to be parsed into fields: a field-by-field 400 on one, a 404 on the other.
    for (const [path, form] of [
      ['/v1/quote/preview', 'src_chain=ethereum&dst_chain=base&amount=1'],
      ['/v1/gasless/orders', `quote_hash=0x${'12'.repeat(32)}`],
    ] as const) {
      const res = await fetch(`${e2e.gatewayUrl}/json${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      });
      expect({ path, http: res.status }).toEqual({ path, http: 415 });
      expect(await status(res)).toMatchObject({ code: 3, reason: 'UNSUPPORTED_MEDIA_TYPE' });
    }
  });

  it('answers what the HTTP layer refuses before routing in the same shape', async () => {
    const badEscape = await fetch(`${e2e.gatewayUrl}/json/v1/partner/keys/%ff/disable`, { method: 'POST' });
    expect(badEscape.status).toBe(400);
    expect(await status(badEscape)).toMatchObject({ code: 3, reason: 'MALFORMED_URL' });
    const api = gatewayClient(e2e.gatewayUrl);
    await expectApiError(api.revokePartnerSession({ id: 's'.repeat(101) }), { http: 414, code: 3, reason: 'PATH_PARAMETER_TOO_LONG' });
    await expectApiError(api.listTokens({ headers: { 'x-api-key': 'k'.repeat(20_000) } }), {
      http: 431,
      code: 3,
      reason: 'HEADERS_TOO_LARGE',
    });
  });

  it('refuses a NUL character anywhere in a request, naming the field', async () => {
    // an incomplete body on purpose: the NUL is refused before the schema looks at the rest
    const partial = { src_chain: 'ethereum', referrers: [{ address: 'ab\u0000c', bps: 1 }] } as Parameters<
      ReturnType<typeof gatewayClient>['previewQuote']
    >[0];
    const err = await expectApiError(gatewayClient(e2e.gatewayUrl).previewQuote(partial), {
      http: 400,
      code: 3,
      reason: 'INVALID_CHARACTER',
    });
    expect(err.fieldViolations).toEqual([{ field: 'referrers[0].address', description: 'must not contain a NUL character' }]);
    const inQuery = await fetch(`${e2e.gatewayUrl}/json/v1/tokens?chain=%00`);
    expect(inQuery.status).toBe(400);
    expect(await status(inQuery)).toMatchObject({ code: 3, reason: 'INVALID_CHARACTER' });
  });

  (firstPost ? it : it.skip)('answers an oversized body with 413 naming the limit', async () => {
    const res = await fetch(`${e2e.gatewayUrl}/json${firstPost!.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(5000) }),
    });
    expect(res.status).toBe(413);
    const body = await status(res);
    expect(body).toMatchObject({ code: 3, reason: 'BODY_TOO_LARGE' });
    expect(body.details).toEqual(expect.arrayContaining([expect.objectContaining({ metadata: { max_bytes: '4096' } })]));
  });

  it('answers operations this build does not serve yet with UNIMPLEMENTED', async () => {
    const unserved = HTTP_OPERATIONS.filter((o) => !o.served);
    for (const op of unserved) {
      const path = op.path.replace(/\{\w+\}/g, 'abc');
      const res = await fetch(`${e2e.gatewayUrl}/json${path}`, {
        method: op.method,
        ...(op.method === 'POST' ? { headers: { 'content-type': 'application/json' }, body: '{}' } : {}),
      });
      expect([op.operationId, res.status]).toEqual([op.operationId, 501]);
      expect(await status(res)).toMatchObject({ code: 12, reason: 'NOT_YET_SERVED' });
    }
  });

  it('serves a valid OpenAPI 3.1 document covering every operation', async () => {
    const res = await fetch(`${e2e.gatewayUrl}/json/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { operationId: string; 'x-not-served'?: boolean }>>;
    };
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    for (const op of HTTP_OPERATIONS) {
      const entry = doc.paths[`/json${op.path}`]?.[op.method.toLowerCase()];
      expect(entry?.operationId).toBe(op.operationId);
      expect(entry?.['x-not-served'] === true).toBe(!op.served);
    }
    // the typed client has nothing the served document lacks (its unit tests check the details)
    const served = new Set(Object.values(doc.paths).flatMap((methods) => Object.values(methods).map((o) => o.operationId)));
    expect(Object.keys(CLIENT_OPERATIONS).filter((id) => !served.has(id))).toEqual([]);
  });
});
