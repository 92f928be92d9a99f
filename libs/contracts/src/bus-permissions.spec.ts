import * as contracts from './index';
import { BUS_USERS, RPC_CATALOGUE, WILDCARD_SUBSCRIPTIONS, busPermissions, callersOf, inboxPrefixOf, serverOf } from './bus-permissions';

const isContract = (v: unknown): v is contracts.RpcContract<never, never> =>
  typeof v === 'object' && v !== null && 'subject' in v && 'request' in v && 'response' in v && 'access' in v;

describe('bus permissions (D14), generated from the contracts', () => {
  const perms = busPermissions();
  const publishers = (subject: string) => BUS_USERS.filter((u) => perms[u].publish.includes(subject));
  const subscribers = (subject: string) => BUS_USERS.filter((u) => perms[u].subscribe.includes(subject));

  it('catalogues every exported contract, each served by a known service', () => {
    const exported = Object.values(contracts).filter(isContract);
    expect(exported.length).toBeGreaterThan(30);
    for (const c of exported) expect(RPC_CATALOGUE).toContain(c);
    for (const c of RPC_CATALOGUE) expect(() => serverOf(c.subject)).not.toThrow();
  });

  it('lets only the declared callers publish each subject, and only its server subscribe', () => {
    for (const c of RPC_CATALOGUE) {
      expect(publishers(c.subject).sort()).toEqual([...new Set(callersOf(c))].sort());
      expect(subscribers(c.subject)).toEqual([serverOf(c.subject)]);
    }
  });

  it('keeps the gateway off internal and operator subjects, and the operator on operator subjects only', () => {
    for (const c of RPC_CATALOGUE) {
      const viaGateway =
        c.access.access === 'public' ||
        c.access.access === 'partner' ||
        (c.access.access === 'internal' && c.access.callers.includes('gateway'));
      expect([c.subject, perms.gateway.publish.includes(c.subject)]).toEqual([c.subject, viaGateway]);
      expect([c.subject, perms.operator.publish.includes(c.subject)]).toEqual([c.subject, c.access.access === 'operator']);
    }
    expect(perms.gateway.publish.filter((s) => /^(ledger|partner-admin|settlement-admin)\./.test(s))).toEqual([]);
    expect(perms.operator.publish.every((s) => /^(partner|settlement)-admin\.v1\./.test(s))).toBe(true);
  });

  it('has no wildcard subscription beyond a user’s own inbox, and no wildcard publish outside its own streams', () => {
    for (const u of BUS_USERS) {
      const allowed = [`${inboxPrefixOf(u)}.>`, ...(WILDCARD_SUBSCRIPTIONS[u] ?? [])];
      for (const s of perms[u].subscribe) if (/[*>]/.test(s)) expect(allowed).toContain(s);
      for (const s of perms[u].publish) expect(s).not.toMatch(/^(>|\$JS\.API\.>|_INBOX)/);
    }
  });

  it('lets only the price-oracle write prices and only the quote-engine publish order events', () => {
    expect(publishers('$KV.prices_v1.>')).toEqual(['price-oracle']);
    expect(BUS_USERS.filter((u) => perms[u].publish.some((s) => s.startsWith('orders.')))).toEqual(['quote-engine']);
    expect(perms['quote-engine'].publish.filter((s) => s.startsWith('orders.'))).toEqual([
      'orders.v1.deposited',
      'orders.v1.fulfilled',
      'orders.v1.refunded',
      'orders.v1.updated.*',
    ]);
    expect(WILDCARD_SUBSCRIPTIONS).toEqual({ gateway: ['orders.v1.updated.*'] });
  });

  it('lets only services that serve operations answer requests', () => {
    expect(BUS_USERS.filter((u) => perms[u].allowResponses).sort()).toEqual(['gasless-relayer', 'partner-service', 'quote-engine']);
  });
});
