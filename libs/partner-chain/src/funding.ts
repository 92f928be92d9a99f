import { type Address, type Hex, encodeFunctionData, isAddress, isHex, size, zeroAddress } from 'viem';

const MAX_UINT256 = (1n << 256n) - 1n;

/** The ABI of contracts/src/IPartnerFundingRouter.sol, item for item. */
export const PARTNER_FUNDING_ROUTER_ABI = [
  {
    type: 'event',
    name: 'Funded',
    anonymous: false,
    inputs: [
      { name: 'fundingId', type: 'bytes32', indexed: true },
      { name: 'token', type: 'address', indexed: true },
      { name: 'from', type: 'address', indexed: true },
      { name: 'amount', type: 'uint256', indexed: false },
    ],
  },
  {
    type: 'function',
    name: 'fund',
    stateMutability: 'payable',
    inputs: [
      { name: 'fundingId', type: 'bytes32' },
      { name: 'token', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [],
  },
] as const;

export interface FundingCallInput {
  /** bytes32 */
  fundingId: Hex;
  /** The zero address funds with the native asset; anything else is an ERC-20 the router pulls. */
  token: Address;
  amount: bigint;
}

export interface FundingCall {
  calldata: Hex;
  /** msg.value: `amount` for the native asset, 0 for an ERC-20. */
  value: bigint;
}

/** Calldata and value of `fund(fundingId, token, amount)` on the partner funding router. */
export function buildFundingCall(input: FundingCallInput): FundingCall {
  const { fundingId, token, amount } = input;
  if (amount <= 0n) throw new Error(`funding amount must be positive, got ${amount}`);
  if (amount > MAX_UINT256) throw new Error(`funding amount ${amount} does not fit in a uint256`);
  if (!isHex(fundingId, { strict: true }) || size(fundingId) !== 32) throw new Error(`fundingId ${fundingId} is not a 32-byte hex value`);
  if (!isAddress(token)) throw new Error(`token ${token} is not an EVM address (lower case or EIP-55 checksummed)`);
  const calldata = encodeFunctionData({ abi: PARTNER_FUNDING_ROUTER_ABI, functionName: 'fund', args: [fundingId, token, amount] });
  const native = token.toLowerCase() === zeroAddress;
  return { calldata, value: native ? amount : 0n };
}
