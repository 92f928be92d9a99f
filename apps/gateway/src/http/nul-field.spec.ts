import { nulField } from './fastify-hooks';

describe('nulField', () => {
  it('names the first field holding a NUL, in document order', () => {
    expect(nulField({ a: 'ok', referrers: [{ address: 'x' }, { address: 'a\u0000' }], z: '\u0000' })).toBe('referrers[1].address');
    expect(nulField({ id: '\u0000' })).toBe('id');
    expect(nulField('\u0000')).toBe('(body)');
    expect(nulField({ ['k\u0000']: 1 })).toBe('k\u0000');
    expect(nulField({ a: ['x', 1, null, true, { b: 'y' }] })).toBeUndefined();
    expect(nulField(undefined)).toBeUndefined();
  });

  it('finds a NUL in a nested key or a late array element, and names it', () => {
    expect(nulField({ a: { b: 'x', ['c\u0000']: 2 } })).toBe('a.c\u0000');
    expect(nulField({ list: ['a', 'b', ['c', 'd\u0000']] })).toBe('list[2][1]');
    expect(nulField({ quiet: { deep: [[['x']]] }, n: 1, f: false, nil: null })).toBeUndefined();
  });

  it('walks a body nested deeper than the call stack allows', () => {
    const depth = 200_000;
    const deep = JSON.parse(`${'['.repeat(depth)}"\\u0000"${']'.repeat(depth)}`);
    expect(nulField(deep)).toBe('[0]'.repeat(depth));
  });
});
