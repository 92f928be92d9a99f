import { decodeFunctionData, toFunctionSelector, zeroAddress } from 'viem';
import { PARTNER_FUNDING_ROUTER_ABI, buildFundingCall } from './funding';

const FUNDING_ID = `0x${'ab'.repeat(32)}` as const;
const USDC = '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48' as const;

describe('buildFundingCall', () => {
  it('encodes fund(fundingId, token, amount) with value = amount for the native asset', () => {
    const { calldata, value } = buildFundingCall({ fundingId: FUNDING_ID, token: zeroAddress, amount: 10n ** 18n });
    expect(calldata.slice(0, 10)).toBe(toFunctionSelector('fund(bytes32,address,uint256)'));
    const decoded = decodeFunctionData({ abi: PARTNER_FUNDING_ROUTER_ABI, data: calldata });
    expect(decoded.functionName).toBe('fund');
    expect(decoded.args).toEqual([FUNDING_ID, zeroAddress, 10n ** 18n]);
    expect(value).toBe(10n ** 18n);
  });

  it('sends no value for an ERC-20, which the router pulls with transferFrom', () => {
    const { calldata, value } = buildFundingCall({ fundingId: FUNDING_ID, token: USDC, amount: 5_000_000n });
    const decoded = decodeFunctionData({ abi: PARTNER_FUNDING_ROUTER_ABI, data: calldata });
    expect(decoded.args).toEqual([FUNDING_ID, '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', 5_000_000n]);
    expect(value).toBe(0n);
  });

  it('accepts the largest uint256 and refuses amounts outside 1..2^256-1', () => {
    const max = (1n << 256n) - 1n;
    expect(
      decodeFunctionData({
        abi: PARTNER_FUNDING_ROUTER_ABI,
        data: buildFundingCall({ fundingId: FUNDING_ID, token: USDC, amount: max }).calldata,
      }).args[2],
    ).toBe(max);
    for (const amount of [0n, -1n, 1n << 256n]) {
      expect(() => buildFundingCall({ fundingId: FUNDING_ID, token: USDC, amount })).toThrow(Error);
    }
    expect(() => buildFundingCall({ fundingId: FUNDING_ID, token: USDC, amount: 0n })).toThrow(/positive/);
    expect(() => buildFundingCall({ fundingId: FUNDING_ID, token: USDC, amount: 1n << 256n })).toThrow(/uint256/);
  });

  it('refuses a funding id that is not 32 bytes and a token that is not an address', () => {
    expect(() => buildFundingCall({ fundingId: '0x1234', token: USDC, amount: 1n })).toThrow(/32-byte/);
    expect(() => buildFundingCall({ fundingId: FUNDING_ID, token: '0x1234', amount: 1n })).toThrow(/not an EVM address/);
  });
});
