import { ORDER_ABI_COMPONENTS } from '@xchain/order-codec';

const ORDER_TUPLE = { name: 'order', type: 'tuple', components: ORDER_ABI_COMPONENTS } as const;
const DESTINATION_CALL_TUPLE = {
  name: 'call',
  type: 'tuple',
  components: [
    { name: 'target', type: 'address' },
    { name: 'gasLimit', type: 'uint256' },
    { name: 'data', type: 'bytes' },
  ],
} as const;

/**
 * The ABI of contracts/src/XchainRouter.sol (the chains' `deposit_target`), item for item (its
 * constructor aside): deposits on the source chain, fills and cancels on the destination, refunds
 * and claims for the treasury on the source.
 */
export const XCHAIN_ROUTER_ABI = [
  {
    type: 'event',
    name: 'OrderOpened',
    anonymous: false,
    inputs: [
      { name: 'quoteHash', type: 'bytes32', indexed: true },
      { ...ORDER_TUPLE, indexed: false },
    ],
  },
  {
    type: 'event',
    name: 'Deposited',
    anonymous: false,
    inputs: [
      { name: 'quoteHash', type: 'bytes32', indexed: true },
      { name: 'depositor', type: 'address', indexed: true },
      { name: 'token', type: 'address', indexed: false },
      { name: 'amount', type: 'uint256', indexed: false },
    ],
  },
  {
    type: 'event',
    name: 'Filled',
    anonymous: false,
    inputs: [
      { name: 'quoteHash', type: 'bytes32', indexed: true },
      { name: 'filler', type: 'address', indexed: true },
      { name: 'recipient', type: 'address', indexed: false },
      { name: 'token', type: 'address', indexed: false },
      { name: 'amount', type: 'uint256', indexed: false },
      { name: 'gasDrop', type: 'uint256', indexed: false },
    ],
  },
  {
    type: 'event',
    name: 'Refunded',
    anonymous: false,
    inputs: [
      { name: 'quoteHash', type: 'bytes32', indexed: true },
      { name: 'to', type: 'address', indexed: true },
      { name: 'token', type: 'address', indexed: false },
      { name: 'amount', type: 'uint256', indexed: false },
    ],
  },
  { type: 'event', name: 'Cancelled', anonymous: false, inputs: [{ name: 'quoteHash', type: 'bytes32', indexed: true }] },
  {
    type: 'event',
    name: 'Claimed',
    anonymous: false,
    inputs: [
      { name: 'quoteHash', type: 'bytes32', indexed: true },
      { name: 'treasury', type: 'address', indexed: true },
      { name: 'token', type: 'address', indexed: false },
      { name: 'amount', type: 'uint256', indexed: false },
    ],
  },
  { type: 'function', name: 'deposit', stateMutability: 'payable', inputs: [ORDER_TUPLE], outputs: [] },
  {
    type: 'function',
    name: 'depositFor',
    stateMutability: 'payable',
    inputs: [ORDER_TUPLE, { name: 'depositor', type: 'address' }],
    outputs: [],
  },
  { type: 'function', name: 'fill', stateMutability: 'payable', inputs: [ORDER_TUPLE, { name: 'amount', type: 'uint256' }], outputs: [] },
  {
    type: 'function',
    name: 'fillWithCall',
    stateMutability: 'payable',
    inputs: [ORDER_TUPLE, { name: 'amount', type: 'uint256' }, DESTINATION_CALL_TUPLE, { name: 'callSalt', type: 'bytes32' }],
    outputs: [
      { name: 'executed', type: 'bool' },
      { name: 'reason', type: 'bytes' },
    ],
  },
  {
    type: 'function',
    name: 'deliverAndCall',
    stateMutability: 'payable',
    inputs: [
      { name: 'filler', type: 'address' },
      { name: 'token', type: 'address' },
      { name: 'amount', type: 'uint256' },
      DESTINATION_CALL_TUPLE,
    ],
    outputs: [],
  },
  {
    type: 'event',
    name: 'CallExecuted',
    anonymous: false,
    inputs: [
      { name: 'quoteHash', type: 'bytes32', indexed: true },
      { name: 'target', type: 'address', indexed: true },
      { name: 'executed', type: 'bool', indexed: false },
    ],
  },
  { type: 'function', name: 'callProxy', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'address' }] },
  { type: 'function', name: 'refund', stateMutability: 'nonpayable', inputs: [ORDER_TUPLE], outputs: [] },
  { type: 'function', name: 'cancel', stateMutability: 'nonpayable', inputs: [ORDER_TUPLE], outputs: [] },
  {
    type: 'function',
    name: 'claim',
    stateMutability: 'nonpayable',
    inputs: [{ name: 'orders', type: 'tuple[]', components: ORDER_ABI_COMPONENTS }],
    outputs: [],
  },
  {
    type: 'function',
    name: 'deposited',
    stateMutability: 'view',
    inputs: [{ name: 'quoteHash', type: 'bytes32' }],
    outputs: [{ name: '', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'filled',
    stateMutability: 'view',
    inputs: [{ name: 'quoteHash', type: 'bytes32' }],
    outputs: [{ name: '', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'refunded',
    stateMutability: 'view',
    inputs: [{ name: 'quoteHash', type: 'bytes32' }],
    outputs: [{ name: '', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'cancelled',
    stateMutability: 'view',
    inputs: [{ name: 'quoteHash', type: 'bytes32' }],
    outputs: [{ name: '', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'claimed',
    stateMutability: 'view',
    inputs: [{ name: 'quoteHash', type: 'bytes32' }],
    outputs: [{ name: '', type: 'bool' }],
  },
  { type: 'function', name: 'refunder', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'address' }] },
  { type: 'function', name: 'settler', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'address' }] },
  { type: 'function', name: 'treasury', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'address' }] },
  { type: 'function', name: 'retention', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'uint64' }] },
  { type: 'function', name: 'retainedUntil', stateMutability: 'view', inputs: [ORDER_TUPLE], outputs: [{ name: '', type: 'uint256' }] },
  { type: 'function', name: 'depositAmount', stateMutability: 'pure', inputs: [ORDER_TUPLE], outputs: [{ name: '', type: 'uint256' }] },
  { type: 'error', name: 'AlreadyDeposited', inputs: [{ name: 'quoteHash', type: 'bytes32' }] },
  { type: 'error', name: 'WrongDepositTarget', inputs: [] },
  { type: 'error', name: 'WrongSourceChain', inputs: [] },
  { type: 'error', name: 'WrongValue', inputs: [] },
  { type: 'error', name: 'WrongDestinationChain', inputs: [] },
  { type: 'error', name: 'AlreadyFilled', inputs: [{ name: 'quoteHash', type: 'bytes32' }] },
  { type: 'error', name: 'AlreadyRefunded', inputs: [{ name: 'quoteHash', type: 'bytes32' }] },
  { type: 'error', name: 'NotDeposited', inputs: [{ name: 'quoteHash', type: 'bytes32' }] },
  {
    type: 'error',
    name: 'BelowMinimum',
    inputs: [
      { name: 'amount', type: 'uint256' },
      { name: 'minAmountOut', type: 'uint256' },
    ],
  },
  { type: 'error', name: 'BadRecipient', inputs: [] },
  { type: 'error', name: 'BadToken', inputs: [] },
  { type: 'error', name: 'NotRefunder', inputs: [] },
  { type: 'error', name: 'NotSettler', inputs: [] },
  { type: 'error', name: 'TransferFailed', inputs: [] },
  { type: 'error', name: 'RetentionOver', inputs: [{ name: 'retainedUntil', type: 'uint256' }] },
  { type: 'error', name: 'OrderCancelled', inputs: [{ name: 'quoteHash', type: 'bytes32' }] },
  { type: 'error', name: 'AlreadyClaimed', inputs: [{ name: 'quoteHash', type: 'bytes32' }] },
  { type: 'error', name: 'NotFilled', inputs: [{ name: 'quoteHash', type: 'bytes32' }] },
  { type: 'error', name: 'BadCallCommitment', inputs: [] },
  { type: 'error', name: 'BadCallTarget', inputs: [] },
  { type: 'error', name: 'InsufficientGas', inputs: [] },
  { type: 'error', name: 'NotSelf', inputs: [] },
  // OpenZeppelin's SafeERC20, when a token answers a transfer with false.
  { type: 'error', name: 'SafeERC20FailedOperation', inputs: [{ name: 'token', type: 'address' }] },
] as const;

/** The errors of contracts/src/XchainCallProxy.sol: a destination call's revert comes back as `CallReverted(reason)`. */
export const XCHAIN_CALL_PROXY_ABI = [
  {
    type: 'function',
    name: 'run',
    stateMutability: 'payable',
    inputs: [
      { name: 'target', type: 'address' },
      { name: 'gasLimit', type: 'uint256' },
      { name: 'data', type: 'bytes' },
    ],
    outputs: [],
  },
  { type: 'error', name: 'InsufficientGas', inputs: [] },
  { type: 'error', name: 'CallReverted', inputs: [{ name: 'reason', type: 'bytes' }] },
] as const;

/** The ABI of contracts/src/GaslessExecutor.sol (the chains' `gasless_executor`). */
export const GASLESS_EXECUTOR_ABI = [
  {
    type: 'function',
    name: 'execute',
    stateMutability: 'nonpayable',
    inputs: [
      ORDER_TUPLE,
      { name: 'owner', type: 'address' },
      { name: 'nonce', type: 'uint256' },
      { name: 'deadline', type: 'uint256' },
      { name: 'signature', type: 'bytes' },
      { name: 'permitSignature', type: 'bytes' },
    ],
    outputs: [],
  },
  {
    type: 'event',
    name: 'Relayed',
    anonymous: false,
    inputs: [
      { name: 'quoteHash', type: 'bytes32', indexed: true },
      { name: 'owner', type: 'address', indexed: true },
      { name: 'relayFee', type: 'uint256', indexed: false },
    ],
  },
  { type: 'function', name: 'permit2', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'address' }] },
  { type: 'function', name: 'router', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'address' }] },
  { type: 'function', name: 'feeRecipient', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'address' }] },
  { type: 'function', name: 'PERMIT_VALUE', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'uint256' }] },
  { type: 'error', name: 'NotGasless', inputs: [] },
  { type: 'error', name: 'WrongSourceChain', inputs: [] },
  { type: 'error', name: 'NativeSource', inputs: [] },
] as const;

/** The part of the canonical Permit2 (SignatureTransfer) the relayer reads. */
export const PERMIT2_ABI = [
  {
    type: 'function',
    name: 'nonceBitmap',
    stateMutability: 'view',
    inputs: [
      { name: 'owner', type: 'address' },
      { name: 'wordPos', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'uint256' }],
  },
  { type: 'function', name: 'DOMAIN_SEPARATOR', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'bytes32' }] },
] as const;

/** ERC-20 with the optional EIP-2612 and EIP-5267 reads. */
export const ERC20_PERMIT_ABI = [
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ name: 'owner', type: 'address' }],
    outputs: [{ name: '', type: 'uint256' }],
  },
  {
    type: 'function',
    name: 'allowance',
    stateMutability: 'view',
    inputs: [
      { name: 'owner', type: 'address' },
      { name: 'spender', type: 'address' },
    ],
    outputs: [{ name: '', type: 'uint256' }],
  },
  {
    type: 'function',
    name: 'approve',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'spender', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'nonces',
    stateMutability: 'view',
    inputs: [{ name: 'owner', type: 'address' }],
    outputs: [{ name: '', type: 'uint256' }],
  },
  { type: 'function', name: 'name', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'string' }] },
  { type: 'function', name: 'version', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'string' }] },
  { type: 'function', name: 'decimals', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'uint8' }] },
  {
    type: 'function',
    name: 'eip712Domain',
    stateMutability: 'view',
    inputs: [],
    outputs: [
      { name: 'fields', type: 'bytes1' },
      { name: 'name', type: 'string' },
      { name: 'version', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
      { name: 'salt', type: 'bytes32' },
      { name: 'extensions', type: 'uint256[]' },
    ],
  },
] as const;
