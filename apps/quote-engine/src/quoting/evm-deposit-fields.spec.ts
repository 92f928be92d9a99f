import { PERMIT2_ADDRESS, XCHAIN_ROUTER_ABI, depositAmount, permit2TypedData } from '@xchain/evm-gasless';
import { type Order, ZERO_BYTES32, hashOrder, toBytes32 } from '@xchain/order-codec';
import { decodeFunctionData, hashTypedData, recoverTypedDataAddress, zeroAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { ChainInfo, TokenInfo } from '../registry/registry-cache';
import { evmDepositFields } from './evm-deposit-fields';

const ROUTER = '0x7CCfEacBa472f31962CB515Fe4cE4477D15C4a04';
const EXECUTOR = '0x71268D7045F6fAF62bDea68CE4BaE4fE2184FB8b';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const REFUND = '0x5555555555555555555555555555555555555555';
const NONCE = (1n << 255n) + 12345n; // a 256-bit word, past what a JS number or uint64 holds

const ethereum: ChainInfo = {
  name: 'ethereum',
  chainId: 1n,
  vm: 'evm',
  nativeSymbol: 'ETH',
  nativeDecimals: 18,
  enabled: true,
  gasless: true,
  maxGasDrop: 0n,
  depositTarget: ROUTER,
  gaslessExecutor: EXECUTOR,
};
const usdc: TokenInfo = { chain: 'ethereum', address: USDC, symbol: 'USDC', decimals: 6, tier: 'stable', permit: true, isNative: false };
const eth: TokenInfo = { ...usdc, address: zeroAddress, symbol: 'ETH', decimals: 18, tier: 'major', permit: false, isNative: true };

function order(over: Partial<Order> = {}): Order {
  return {
    version: 1,
    salt: `0x${'ab'.repeat(32)}`,
    srcChainId: 1n,
    dstChainId: 42161n,
    srcToken: toBytes32('evm', USDC),
    dstToken: toBytes32('evm', '0xaf88d065e77c8cC2239327C5EDb3A432268e5831'),
    amountIn: 1_000_000_000n,
    amountOut: 998_000_000n,
    minAmountOut: 993_000_000n,
    recipient: toBytes32('evm', '0x6666666666666666666666666666666666666666'),
    refundAddress: toBytes32('evm', REFUND),
    gasDrop: 0n,
    tradeType: 1,
    slippageBps: 50,
    srcSlippageBps: 0,
    dstGasNative: 10_000n,
    sponsorGas: 1_500_000n,
    gasless: true,
    sponsorFees: false,
    referrersHash: ZERO_BYTES32,
    issuedAt: 1_795_000_000n,
    expiresAt: 1_795_001_800n,
    depositTarget: toBytes32('evm', ROUTER),
    ...over,
  };
}

/** What a wallet receives: the quote's JSON. */
const overTheWire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

describe('evmDepositFields', () => {
  describe('a gasless quote', () => {
    const o = order();
    const fields = evmDepositFields({ order: o, chain: ethereum, token: { ...usdc, permit: false }, permit2Nonce: NONCE });

    it('carries the Permit2 typed data of the order, and nothing to send', () => {
      expect(Object.keys(fields)).toEqual(['permit2']);
      const permit2 = overTheWire(fields.permit2!);
      expect(hashTypedData(permit2 as never)).toBe(
        hashTypedData(permit2TypedData({ order: o, spender: EXECUTOR, nonce: NONCE, deadline: o.expiresAt }) as never),
      );
      expect(permit2.message).toMatchObject({
        permitted: { token: USDC, amount: '1000000000' },
        spender: EXECUTOR,
        nonce: NONCE.toString(),
        deadline: '1795001800',
      });
      expect(permit2.domain).toEqual({ name: 'Permit2', chainId: 1, verifyingContract: PERMIT2_ADDRESS });
    });

    it('gives typed data whose JSON form a fresh key signs and that recovers to it', async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      const typed = overTheWire(fields.permit2!) as never;
      const signature = await account.signTypedData(typed);
      expect(await recoverTypedDataAddress({ ...(typed as object), signature } as never)).toBe(account.address);
    });

    it('adds the EIP-2612 permit to Permit2 for a permit token whose state was read', () => {
      const withPermit = evmDepositFields({
        order: o,
        chain: ethereum,
        token: usdc,
        permit2Nonce: NONCE,
        tokenPermit: { name: 'USD Coin', version: '2', nonce: 7n },
      });
      expect(withPermit.permit2).toEqual(fields.permit2);
      const erc2612 = overTheWire(withPermit.erc2612!);
      expect(erc2612.domain).toEqual({ name: 'USD Coin', version: '2', chainId: 1, verifyingContract: USDC });
      expect(erc2612.primaryType).toBe('Permit');
      expect(erc2612.message).toEqual({
        owner: REFUND,
        spender: PERMIT2_ADDRESS,
        value: (2n ** 256n - 1n).toString(),
        nonce: '7',
        deadline: '1795001800',
      });
    });

    it('leaves erc2612 out when the token state could not be read', () => {
      expect(Object.keys(evmDepositFields({ order: o, chain: ethereum, token: usdc, permit2Nonce: NONCE }))).toEqual(['permit2']);
    });

    it('carries nothing on a chain without an executor (nobody could spend the permit)', () => {
      const { gaslessExecutor: _none, ...noExecutor } = ethereum;
      expect(evmDepositFields({ order: o, chain: noExecutor, token: usdc, permit2Nonce: NONCE })).toEqual({});
    });
  });

  describe('a quote the user deposits for', () => {
    it('from the native asset: deposit_tx pays the deposit as value, with no approval', () => {
      const o = order({ gasless: false, srcToken: toBytes32('evm', zeroAddress), amountIn: 10n ** 17n, sponsorGas: 0n });
      const fields = evmDepositFields({ order: o, chain: ethereum, token: eth, permit2Nonce: NONCE });
      expect(Object.keys(fields)).toEqual(['deposit_tx']);
      expect(fields.deposit_tx).toMatchObject({ to: ROUTER, value: depositAmount(o).toString() });
      expect(fields.deposit_tx!.value).toBe('100000000000000000');
      const call = decodeFunctionData({ abi: XCHAIN_ROUTER_ABI, data: fields.deposit_tx!.data as `0x${string}` });
      expect(call.functionName).toBe('deposit');
      expect(hashOrder(call.args![0] as Order)).toBe(hashOrder(o));
    });

    it('from an ERC-20: value "0" and an approval of the router for the deposit amount', () => {
      const o = order({ gasless: false, sponsorGas: 0n });
      const fields = evmDepositFields({ order: o, chain: ethereum, token: usdc, permit2Nonce: NONCE });
      expect(fields.deposit_tx).toMatchObject({ to: ROUTER, value: '0' });
      expect(fields.approval).toEqual({ token: USDC, spender: ROUTER, amount: '1000000000' });
      expect(fields.permit2).toBeUndefined();
    });
  });

  it('carries none of these for a Solana source', () => {
    const solana: ChainInfo = {
      ...ethereum,
      name: 'solana',
      chainId: 792703809n,
      vm: 'svm',
      depositTarget: 'XchainProgram11111111111111111111111111111',
    };
    const sol = { ...usdc, chain: 'solana' };
    expect(evmDepositFields({ order: order(), chain: solana, token: sol, permit2Nonce: NONCE })).toEqual({});
    expect(evmDepositFields({ order: order({ gasless: false }), chain: solana, token: sol, permit2Nonce: NONCE })).toEqual({});
  });
});
