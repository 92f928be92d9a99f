import { readFileSync } from 'node:fs';
import { zeroAddress } from 'viem';
import { DEFAULT_PARTNERS_FILE, DEFAULT_REGISTRY_FILE, planDevnet, readDevnetPlan } from './devnet-plan';

const registry = JSON.parse(readFileSync(DEFAULT_REGISTRY_FILE, 'utf8')) as {
  tokens: { chain: string; address: string; permit: boolean }[];
};
const partners = JSON.parse(readFileSync(DEFAULT_PARTNERS_FILE, 'utf8')) as unknown;

describe('planDevnet', () => {
  it('takes every ERC-20 of a chain from the registry and leaves the native asset out', () => {
    const [arb] = readDevnetPlan(['arbitrum']);
    const listed = registry.tokens.filter((t) => t.chain === 'arbitrum' && t.address !== zeroAddress);
    expect(arb?.chainId).toBe(42161);
    expect(arb?.tokens.map((t) => t.address.toLowerCase()).sort()).toEqual(listed.map((t) => t.address.toLowerCase()).sort());
  });

  it("signs USDC permits under Circle's domain and other permit tokens under their symbol, version 1", () => {
    const [arb] = readDevnetPlan(['arbitrum']);
    const usdc = arb?.tokens.find((t) => t.symbol === 'USDC');
    const weth = arb?.tokens.find((t) => t.symbol === 'WETH');
    expect(usdc && { name: usdc.name, version: usdc.permitVersion }).toEqual({ name: 'USD Coin', version: '2' });
    expect(weth && { name: weth.name, version: weth.permitVersion }).toEqual({ name: 'WETH', version: '1' });
    const permits = registry.tokens.filter((t) => t.chain === 'arbitrum' && t.permit).length;
    expect(arb?.tokens.filter((t) => t.permitVersion !== undefined)).toHaveLength(permits);
  });

  it('puts the funding router on the funding chain only and a voucher router on each listed chain', () => {
    const [eth, base] = readDevnetPlan(['ethereum', 'base']);
    expect(eth?.fundingRouter).toBeUndefined();
    expect(base?.fundingRouter).toBe('0x425F2a27399bC505101a282A6707E86335347860');
    expect(eth?.voucherRouter).toBe('0xef68b305AF6aC1ADE96331Bb33d092cEe0A0E897');
  });

  it('refuses a chain that is unknown or not EVM', () => {
    expect(() => planDevnet(['solana'], registry, partners)).toThrow(/not an EVM chain/);
    expect(() => planDevnet(['fantom'], registry, partners)).toThrow(/not a chain of the registry/);
  });
});
