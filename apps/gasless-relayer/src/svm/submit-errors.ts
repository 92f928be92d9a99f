import { Code, RpcError, badRequest, errorInfo } from '@xchain/contracts';

/** The reasons SubmitGaslessOrder refuses an order with, before any gas is spent. */
export const refuse = {
  notGasless: () =>
    new RpcError(Code.INVALID_ARGUMENT, 'the quote was not priced for gasless submission; deposit it with its deposit_tx', [
      errorInfo('NOT_GASLESS'),
    ]),
  wrongVm: (field: 'evm' | 'svm', chain: string) =>
    new RpcError(Code.INVALID_ARGUMENT, `${field}: required for a ${chain} source`, [
      errorInfo('WRONG_VM', { expected: field }),
      badRequest([{ field, description: `is required for a ${chain} source` }]),
    ]),
  field: (field: string, description: string, reason = 'INVALID_REQUEST') => RpcError.invalidArgument([{ field, description }], reason),
  signature: (why: string) =>
    new RpcError(Code.INVALID_ARGUMENT, `evm.signature: ${why}`, [
      errorInfo('INVALID_SIGNATURE'),
      badRequest([{ field: 'evm.signature', description: why }]),
    ]),
  permitSignature: (why: string) =>
    new RpcError(Code.INVALID_ARGUMENT, `evm.permit_signature: ${why}`, [
      errorInfo('INVALID_PERMIT_SIGNATURE'),
      badRequest([{ field: 'evm.permit_signature', description: why }]),
    ]),
  deadlinePassed: (deadline: bigint) =>
    new RpcError(Code.FAILED_PRECONDITION, `the permit deadline ${deadline} has passed; request a new quote`, [
      errorInfo('DEADLINE_PASSED', { deadline: deadline.toString() }),
    ]),
  nonceUsed: (nonce: bigint) =>
    new RpcError(Code.ALREADY_EXISTS, 'the Permit2 nonce of this quote was already used on chain', [
      errorInfo('PERMIT2_NONCE_USED', { permit2_nonce: nonce.toString() }),
    ]),
  balance: (balance: bigint, required: bigint) =>
    new RpcError(Code.FAILED_PRECONDITION, `the owner holds ${balance} of the source token, the order needs ${required}`, [
      errorInfo('INSUFFICIENT_BALANCE', { balance: balance.toString(), required: required.toString() }),
    ]),
  allowance: (allowance: bigint, required: bigint, spender: string) =>
    new RpcError(
      Code.FAILED_PRECONDITION,
      `the owner's allowance to Permit2 is ${allowance}, the order needs ${required}: approve Permit2 or send permit_signature`,
      [errorInfo('INSUFFICIENT_ALLOWANCE', { allowance: allowance.toString(), required: required.toString(), spender })],
    ),
  simulation: (reason: string) =>
    new RpcError(Code.FAILED_PRECONDITION, `the relayed call would revert: ${reason}`, [
      errorInfo('SIMULATION_REVERTED', { revert_reason: reason }),
    ]),
  chainNotServed: (chain: string) => RpcError.unavailable(`the relayer has no RPC for ${chain}`, 'CHAIN_NOT_RELAYED', 60, { chain }),
  // Solana (D6): what svm.tx_base64 must be. Each is found before the fee payer signs anything.
  transaction: (why: string) =>
    new RpcError(Code.INVALID_ARGUMENT, `svm.tx_base64: ${why}`, [
      errorInfo('INVALID_TRANSACTION'),
      badRequest([{ field: 'svm.tx_base64', description: why }]),
    ]),
  versionedTransaction: () =>
    new RpcError(
      Code.INVALID_ARGUMENT,
      "svm.tx_base64: is a versioned transaction; only legacy transactions are relayed (the quote's svm.tx_base64 is one)",
      [errorInfo('VERSIONED_TRANSACTION'), badRequest([{ field: 'svm.tx_base64', description: 'must be a legacy transaction' }])],
    ),
  wrongFeePayer: (got: string, expected: string) =>
    new RpcError(Code.INVALID_ARGUMENT, `svm.tx_base64: the fee payer is ${got}; it must be the quote's fee_payer ${expected}`, [
      errorInfo('WRONG_FEE_PAYER', { fee_payer: got, expected }),
      badRequest([{ field: 'svm.tx_base64', description: `fee payer must be ${expected}` }]),
    ]),
  feePayerInInstruction: (index: number, feePayer: string) =>
    new RpcError(
      Code.INVALID_ARGUMENT,
      `svm.tx_base64: instruction ${index} uses the fee payer ${feePayer}; the fee payer pays fees and nothing else`,
      [
        errorInfo('FEE_PAYER_IN_INSTRUCTION', { instruction: String(index), fee_payer: feePayer }),
        badRequest([{ field: 'svm.tx_base64', description: `instruction ${index} uses the fee payer account` }]),
      ],
    ),
  missingSignature: (signer: string) =>
    new RpcError(Code.INVALID_ARGUMENT, `svm.tx_base64: ${signer} must sign the transaction, and its signature is missing`, [
      errorInfo('MISSING_SIGNATURE', { signer }),
      badRequest([{ field: 'svm.tx_base64', description: `no signature of ${signer}` }]),
    ]),
  svmSignature: (signer: string) =>
    new RpcError(Code.INVALID_ARGUMENT, `svm.tx_base64: the signature of ${signer} does not verify over the transaction's message`, [
      errorInfo('INVALID_SIGNATURE', { signer }),
      badRequest([{ field: 'svm.tx_base64', description: `the signature of ${signer} is not valid` }]),
    ]),
  instructions: (why: string) =>
    new RpcError(Code.INVALID_ARGUMENT, `svm.tx_base64: the instructions are not exactly this quote's deposit: ${why}`, [
      errorInfo('INSTRUCTIONS_MISMATCH', { detail: why }),
      badRequest([{ field: 'svm.tx_base64', description: `must hold exactly the quote's deposit instructions (${why})` }]),
    ]),
  blockhashExpired: (blockhash: string) =>
    new RpcError(
      Code.FAILED_PRECONDITION,
      `the transaction's blockhash ${blockhash} has expired: sign the deposit again with a recent blockhash (a fresh quote carries one)`,
      [errorInfo('BLOCKHASH_EXPIRED', { blockhash })],
    ),
  feePayerNotServed: (feePayer: string) =>
    RpcError.unavailable(`this relayer does not hold the key of the quote's fee payer ${feePayer}`, 'FEE_PAYER_NOT_SERVED', 60, {
      fee_payer: feePayer,
    }),
  sponsorBalance: () =>
    new RpcError(Code.FAILED_PRECONDITION, "the sponsoring partner's funding balance no longer covers this order's relay gas", [
      errorInfo('SPONSOR_BALANCE_INSUFFICIENT'),
    ]),
};
