import { Code, RpcError, badRequest, errorInfo } from '@xchain/contracts';

/** The reasons SubmitGaslessOrder refuses an order with, before any gas is spent. */
export const refuse = {
  notGasless: () => new RpcError(Code.INVALID_ARGUMENT, 'the quote was not priced for gasless submission; deposit it with its deposit_tx', [errorInfo('NOT_GASLESS')]),
  wrongVm: (field: 'evm' | 'svm', chain: string) =>
    new RpcError(Code.INVALID_ARGUMENT, `${field}: required for a ${chain} source`, [errorInfo('WRONG_VM', { expected: field }), badRequest([{ field, description: `is required for a ${chain} source` }])]),
  svmNotServed: () => new RpcError(Code.UNIMPLEMENTED, 'gasless Solana orders are not relayed by this version yet', [errorInfo('NOT_YET_SERVED', { operation: 'SubmitGaslessOrder (svm)' })]),
  field: (field: string, description: string, reason = 'INVALID_REQUEST') => RpcError.invalidArgument([{ field, description }], reason),
  signature: (why: string) => new RpcError(Code.INVALID_ARGUMENT, `evm.signature: ${why}`, [errorInfo('INVALID_SIGNATURE'), badRequest([{ field: 'evm.signature', description: why }])]),
  permitSignature: (why: string) =>
    new RpcError(Code.INVALID_ARGUMENT, `evm.permit_signature: ${why}`, [errorInfo('INVALID_PERMIT_SIGNATURE'), badRequest([{ field: 'evm.permit_signature', description: why }])]),
  deadlinePassed: (deadline: bigint) =>
    new RpcError(Code.FAILED_PRECONDITION, `the permit deadline ${deadline} has passed; request a new quote`, [errorInfo('DEADLINE_PASSED', { deadline: deadline.toString() })]),
  nonceUsed: (nonce: bigint) =>
    new RpcError(Code.ALREADY_EXISTS, 'the Permit2 nonce of this quote was already used on chain', [errorInfo('PERMIT2_NONCE_USED', { permit2_nonce: nonce.toString() })]),
  balance: (balance: bigint, required: bigint) =>
    new RpcError(Code.FAILED_PRECONDITION, `the owner holds ${balance} of the source token, the order needs ${required}`, [
      errorInfo('INSUFFICIENT_BALANCE', { balance: balance.toString(), required: required.toString() }),
    ]),
  allowance: (allowance: bigint, required: bigint, spender: string) =>
    new RpcError(Code.FAILED_PRECONDITION, `the owner's allowance to Permit2 is ${allowance}, the order needs ${required}: approve Permit2 or send permit_signature`, [
      errorInfo('INSUFFICIENT_ALLOWANCE', { allowance: allowance.toString(), required: required.toString(), spender }),
    ]),
  simulation: (reason: string) =>
    new RpcError(Code.FAILED_PRECONDITION, `the relayed call would revert: ${reason}`, [errorInfo('SIMULATION_REVERTED', { revert_reason: reason })]),
  chainNotServed: (chain: string) => RpcError.unavailable(`the relayer has no RPC for ${chain}`, 'CHAIN_NOT_RELAYED', 60, { chain }),
  sponsorBalance: () =>
    new RpcError(Code.FAILED_PRECONDITION, "the sponsoring partner's funding balance no longer covers this order's relay gas", [errorInfo('SPONSOR_BALANCE_INSUFFICIENT')]),
};
