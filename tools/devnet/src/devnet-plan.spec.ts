import { readFileSync } from 'node:fs';
import { zeroAddress } from 'viem';
import { DEFAULT_PARTNERS_FILE, DEFAULT_REGISTRY_FILE, planDevnet, readDevnetPlan } from './devnet-plan';
import { cctpPlan } from './equip-chain';

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

  it("gives each chain CCTP serves its domain and the registry's USDC, and bsc (no CCTP domain) no stand-ins", () => {
    const [eth, base, arb, bsc] = readDevnetPlan(['ethereum', 'base', 'arbitrum', 'bsc']);
    expect([eth, base, arb].map((p) => cctpPlan(p!))).toEqual([
      { domain: 0, usdc: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' },
      { domain: 6, usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' },
      { domain: 3, usdc: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831' },
    ]);
    expect(bsc?.tokens.some((t) => t.symbol === 'USDC')).toBe(true);
    expect(cctpPlan(bsc!)).toBeUndefined();
    expect(cctpPlan({ ...base!, tokens: base!.tokens.filter((t) => t.symbol !== 'USDC') })).toBeUndefined();
  });

  it('refuses a chain that is unknown or not EVM', () => {
    expect(() => planDevnet(['solana'], registry, partners)).toThrow(/not an EVM chain/);
    expect(() => planDevnet(['fantom'], registry, partners)).toThrow(/not a chain of the registry/);
  });
});
