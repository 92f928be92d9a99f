import { concat, encodeAbiParameters, hashTypedData, keccak256, parseAbiParameters, toHex } from 'viem';
import { sampleOrder as sampleEvmOrder } from '@xchain/order-codec';
import { depositAmount, relayFee } from './calls';
import {
  ERC2612_PERMIT_VALUE,
  ORDER_EIP712_TYPE,
  ORDER_TYPEHASH,
  PERMIT2_ADDRESS,
  WITNESS_TYPE_STRING,
  erc2612TypedData,
  orderWitnessHash,
  permit2TypedData,
  tokenOf,
} from './typed-data';

const ORDER_TYPE =
  'Order(uint8 version,bytes32 salt,uint64 srcChainId,uint64 dstChainId,bytes32 srcToken,bytes32 dstToken,' +
  'uint256 amountIn,uint256 amountOut,uint256 minAmountOut,bytes32 recipient,bytes32 refundAddress,' +
  'uint256 gasDrop,uint8 tradeType,uint16 slippageBps,uint16 srcSlippageBps,uint256 dstGasNative,' +
  'uint256 sponsorGas,bool gasless,bool sponsorFees,bytes32 referrersHash,uint64 issuedAt,uint64 expiresAt,' +
  'bytes32 depositTarget)';

type AnyTypedData = Parameters<typeof hashTypedData>[0];
/** What a wallet receives: the typed data after JSON, no bigints, no prototypes. */
const overJson = <T>(value: T): AnyTypedData => JSON.parse(JSON.stringify(value)) as AnyTypedData;

describe('Permit2 witness typed data', () => {
  const order = sampleEvmOrder({ gasless: true, sponsorGas: 1_234_567n, amountIn: 1_000_000_000n });
  const spender = '0x1111111111111111111111111111111111111111';

  it('spells the witness type string Permit2 appends, structs sorted by name', () => {
    expect(ORDER_EIP712_TYPE).toBe(ORDER_TYPE);
    expect(WITNESS_TYPE_STRING).toBe(`Order witness)${ORDER_TYPE}TokenPermissions(address token,uint256 amount)`);
    expect(ORDER_TYPEHASH).toBe(keccak256(toHex(ORDER_TYPE)));
  });

  it('hashes the same after a JSON round trip, and the Permit2 digest folds in the witness type string', () => {
    const typed = permit2TypedData({ order, spender, nonce: 2n ** 255n + 7n, deadline: order.expiresAt });
    const digest = hashTypedData(overJson(typed));
    expect(hashTypedData(typed as unknown as AnyTypedData)).toBe(digest);
    expect(typed.domain).toEqual({ name: 'Permit2', chainId: 1, verifyingContract: PERMIT2_ADDRESS });
    expect(typed.message.permitted).toEqual({ token: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', amount: '1000000000' });
    expect(typed.message.nonce).toBe((2n ** 255n + 7n).toString());

    // Permit2's own construction (SignatureTransfer + PermitHash), rebuilt by hand: typehash of
    // the stub plus the witness type string, the witness being the order's struct hash.
    const typeHash = keccak256(
      toHex(`PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,${WITNESS_TYPE_STRING}`),
    );
    const tokenPermissions = keccak256(
      encodeAbiParameters(parseAbiParameters('bytes32, address, uint256'), [
        keccak256(toHex('TokenPermissions(address token,uint256 amount)')),
        tokenOf(order),
        order.amountIn,
      ]),
    );
    const structHash = keccak256(
      encodeAbiParameters(parseAbiParameters('bytes32, bytes32, address, uint256, uint256, bytes32'), [
        typeHash,
        tokenPermissions,
        spender,
        2n ** 255n + 7n,
        order.expiresAt,
        orderWitnessHash(order),
      ]),
    );
    const domainHash = keccak256(
      encodeAbiParameters(parseAbiParameters('bytes32, bytes32, uint256, address'), [
        keccak256(toHex('EIP712Domain(string name,uint256 chainId,address verifyingContract)')),
        keccak256(toHex('Permit2')),
        1n,
        PERMIT2_ADDRESS,
      ]),
    );
    expect(digest).toBe(keccak256(concat(['0x1901', domainHash, structHash])));
  });

  it('changes the digest when any order field changes', () => {
    const base = hashTypedData(overJson(permit2TypedData({ order, spender, nonce: 1n, deadline: 2n })));
    const other = hashTypedData(
      overJson(permit2TypedData({ order: { ...order, minAmountOut: order.minAmountOut - 1n }, spender, nonce: 1n, deadline: 2n })),
    );
    expect(other).not.toBe(base);
  });

  it('builds an EIP-2612 permit to Permit2 that survives JSON', () => {
    const typed = erc2612TypedData({
      chainId: 8453n,
      token: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
      name: 'USD Coin',
      version: '2',
      owner: spender,
      nonce: 0n,
      deadline: 9n,
    });
    expect(typed.message.spender).toBe(PERMIT2_ADDRESS);
    // The maximum, whatever the order: one permit serves every order of the wallet signed on its nonce.
    expect(typed.message.value).toBe(ERC2612_PERMIT_VALUE.toString());
    expect(ERC2612_PERMIT_VALUE).toBe(2n ** 256n - 1n);
    expect(typed.domain.verifyingContract).toBe('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913');
    expect(hashTypedData(overJson(typed))).toBe(hashTypedData(typed as unknown as AnyTypedData));
  });
});

describe('depositAmount and relayFee', () => {
  const amountIn = 1_000_000_000n;
  const sponsorGas = 123_457n;

  it('takes all of amountIn and no fee for an order the user deposits itself', () => {
    const order = sampleEvmOrder({ amountIn, sponsorGas, gasless: false });
    expect([depositAmount(order), relayFee(order)]).toEqual([amountIn, 0n]);
  });

  it('pays the relay gas out of amountIn for a gasless order the user pays for', () => {
    const order = sampleEvmOrder({ amountIn, sponsorGas, gasless: true, sponsorFees: false });
    expect([depositAmount(order), relayFee(order)]).toEqual([amountIn - sponsorGas, sponsorGas]);
    expect(depositAmount(order) + relayFee(order)).toBe(amountIn);
  });

  it('charges the user nothing for a sponsored gasless order', () => {
    const order = sampleEvmOrder({ amountIn, sponsorGas, gasless: true, sponsorFees: true });
    expect([depositAmount(order), relayFee(order)]).toEqual([amountIn, 0n]);
  });
});
