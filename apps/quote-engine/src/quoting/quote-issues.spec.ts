import { type ExecutabilityFacts, issuesOf } from './quote-issues';

const base: ExecutabilityFacts = {
  srcChain: 'ethereum',
  srcVm: 'evm',
  srcSymbol: 'USDC',
  srcNativeSymbol: 'ETH',
  srcIsNative: false,
  gasless: false,
  amountIn: 1000n,
  permitOffered: false,
  depositGas: 100_000n,
  source: { balance: 1000n, allowance: 1000n, native: 10n ** 15n, gasPrice: 10n ** 9n },
  dstChain: 'arbitrum',
  dstNativeSymbol: 'ETH',
  gasDrop: 0n,
};
const codes = (f: Partial<ExecutabilityFacts>) => issuesOf({ ...base, ...f }).map((i) => i.code);

describe('issuesOf', () => {
  it('finds nothing for a funded, approved wallet with gas', () => {
    expect(issuesOf(base)).toEqual([]);
  });

  it('reports a short balance with what is needed, what there is and how much more to fund', () => {
    const [issue] = issuesOf({ ...base, source: { ...base.source, balance: 400n } as never });
    expect(issue).toMatchObject({ code: 'BALANCE_SHORT', chain: 'ethereum', needed: '1000', have: '400' });
    expect(issue!.fix).toContain('600 more');
  });

  it('reports a short router allowance on a deposit the wallet sends, whatever the permit', () => {
    const source = { ...base.source, allowance: 999n } as never;
    expect(codes({ source })).toEqual(['ROUTER_ALLOWANCE_SHORT']);
    expect(codes({ source, permitOffered: true })).toEqual(['ROUTER_ALLOWANCE_SHORT']);
    expect(issuesOf({ ...base, source })[0]).toMatchObject({ needed: '1000', have: '999' });
  });

  it('reports a short Permit2 allowance on a gasless quote only when no EIP-2612 permit is offered', () => {
    const source = { balance: 1000n, allowance: 0n };
    expect(codes({ gasless: true, source })).toEqual(['PERMIT2_ALLOWANCE_SHORT']);
    expect(issuesOf({ ...base, gasless: true, source })[0]!.fix).toBe('approve Permit2 for at least 1000 base units of USDC');
    expect(codes({ gasless: true, source, permitOffered: true })).toEqual([]);
  });

  it("reports native gas short of the deposit's gas times the gas price, plus the value of a native deposit", () => {
    // 100 000 gas at 1 gwei: 1e14 wei needed.
    expect(codes({ source: { ...base.source, native: 10n ** 14n } as never })).toEqual([]);
    const [issue] = issuesOf({ ...base, source: { ...base.source, native: 10n ** 14n - 1n } as never });
    expect(issue).toMatchObject({ code: 'NATIVE_GAS_SHORT', needed: '100000000000000', have: '99999999999999' });
    // Native source: the value counts too; its balance is its native balance.
    const native = { balance: 10n ** 14n, native: 10n ** 14n, gasPrice: 10n ** 9n };
    expect(issuesOf({ ...base, srcIsNative: true, source: native })).toEqual([
      expect.objectContaining({ code: 'NATIVE_GAS_SHORT', needed: String(10n ** 14n + 1000n), have: String(10n ** 14n) }),
    ]);
    // Gasless: the relayer pays the gas.
    expect(codes({ gasless: true, source: { balance: 1000n, allowance: 1000n } })).toEqual([]);
  });

  it('says which chain could not be read, once per chain, and still judges the other', () => {
    expect(codes({ source: { unreadable: 'no answer' } })).toEqual(['CHAIN_UNAVAILABLE']);
    expect(codes({ source: { unreadable: 'no answer' }, gasDrop: 5n, recipient: { receives: false } })).toEqual([
      'CHAIN_UNAVAILABLE',
      'GAS_DROP_RECIPIENT_CANNOT_RECEIVE',
    ]);
    const both = issuesOf({ ...base, source: { unreadable: 'x' }, gasDrop: 5n, recipient: { unreadable: 'y' } });
    expect(both.map((i) => [i.code, i.chain])).toEqual([
      ['CHAIN_UNAVAILABLE', 'ethereum'],
      ['CHAIN_UNAVAILABLE', 'arbitrum'],
    ]);
    expect(codes({ source: { unreadable: 'x' }, dstChain: 'ethereum', gasDrop: 5n, recipient: { unreadable: 'x' } })).toEqual([
      'CHAIN_UNAVAILABLE',
    ]);
  });

  it('reports a gas-drop recipient that refuses the native transfer', () => {
    expect(codes({ gasDrop: 5n, recipient: { receives: true } })).toEqual([]);
    expect(issuesOf({ ...base, gasDrop: 5n, recipient: { receives: false } })[0]).toMatchObject({
      code: 'GAS_DROP_RECIPIENT_CANNOT_RECEIVE',
      chain: 'arbitrum',
      needed: '5',
    });
  });

  it('reports every rule that holds, in order', () => {
    expect(codes({ source: { balance: 0n, allowance: 0n, native: 0n, gasPrice: 1n } })).toEqual([
      'BALANCE_SHORT',
      'ROUTER_ALLOWANCE_SHORT',
      'NATIVE_GAS_SHORT',
    ]);
  });
});
