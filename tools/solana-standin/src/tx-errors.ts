/**
 * litesvm's transaction errors in Solana's own JSON shape (serde's: a unit variant is its name,
 * `{"InstructionError":[0,{"Custom":1}]}`, `{"InsufficientFundsForRent":{"account_index":2}}`) and
 * with the validator's messages, so a client cannot tell the stand-in from a validator by its errors.
 */

// Discriminants of litesvm's `TransactionErrorFieldless` and `InstructionErrorFieldless` (its .d.ts
// declares them as const enums, which do not exist at run time): Solana's variant names, in order.
const TRANSACTION_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
] as const;

const INSTRUCTION_ERRORS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
] as const;

/** The validator's text for the errors a client meets in practice; others show their name. */
const TRANSACTION_MESSAGES: Record<string, string> = {
  AccountInUse: 'Account in use',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  MissingSignatureForFee: 'Transaction requires a fee but has no signature present',
  InvalidAccountIndex: 'Transaction contains an invalid account reference',
  SignatureFailure: 'Transaction did not pass signature verification',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
};

const INSTRUCTION_MESSAGES: Record<string, string> = {
  GenericError: 'generic instruction error',
  InvalidArgument: 'invalid program argument',
  InvalidInstructionData: 'invalid instruction data',
  InvalidAccountData: 'invalid account data for instruction',
  InsufficientFunds: 'insufficient funds for instruction',
  IncorrectProgramId: 'incorrect program id for instruction',
  MissingRequiredSignature: 'missing required signature for instruction',
  AccountAlreadyInitialized: 'instruction requires an uninitialized account',
  UninitializedAccount: 'instruction requires an initialized account',
  ReadonlyLamportChange: 'instruction changed the balance of a read-only account',
  NotEnoughAccountKeys: 'insufficient account keys for instruction',
  ExternalAccountLamportSpend: 'instruction spent from the balance of an account it does not own',
};

/** The JSON of an error as litesvm reports it (a number for unit variants, a class instance otherwise). */
export function txErrorJson(err: unknown): unknown {
  if (typeof err === 'number') return TRANSACTION_ERRORS[err] ?? `TransactionError${err}`;
  if (!err || typeof err !== 'object') return String(err);
  const name = err.constructor.name;
  const e = err as { index?: number; accountIndex?: number; err?: () => unknown };
  if (name === 'TransactionErrorInstructionError' && typeof e.err === 'function')
    return { InstructionError: [e.index, instructionErrorJson(e.err())] };
  if (name === 'TransactionErrorDuplicateInstruction') return { DuplicateInstruction: e.index };
  if (name === 'TransactionErrorInsufficientFundsForRent') return { InsufficientFundsForRent: { account_index: e.accountIndex } };
  if (name === 'TransactionErrorProgramExecutionTemporarilyRestricted')
    return { ProgramExecutionTemporarilyRestricted: { account_index: e.accountIndex } };
  return name;
}

function instructionErrorJson(err: unknown): unknown {
  if (typeof err === 'number') return INSTRUCTION_ERRORS[err] ?? `InstructionError${err}`;
  const e = err as { code?: number; msg?: string; constructor: { name: string } };
  if (e.constructor.name === 'InstructionErrorCustom') return { Custom: e.code };
  if (e.constructor.name === 'InstructionErrorBorshIo') return { BorshIoError: e.msg };
  return e.constructor.name;
}

/** The validator's display text of an error in JSON form (what follows "Transaction simulation failed: "). */
export function txErrorMessage(json: unknown): string {
  if (typeof json === 'string') return TRANSACTION_MESSAGES[json] ?? json;
  const o = json as Record<string, unknown>;
  if (Array.isArray(o['InstructionError'])) {
    const [index, inner] = o['InstructionError'] as [number, unknown];
    return `Error processing Instruction ${index}: ${instructionErrorMessage(inner)}`;
  }
  if (o['InsufficientFundsForRent']) {
    const { account_index } = o['InsufficientFundsForRent'] as { account_index: number };
    return `Transaction results in an account (${account_index}) with insufficient funds for rent`;
  }
  if (o['DuplicateInstruction'] !== undefined)
    return `Transaction contains a duplicate instruction (${String(o['DuplicateInstruction'])}) that is not allowed`;
  return JSON.stringify(json);
}

function instructionErrorMessage(json: unknown): string {
  if (typeof json === 'string') return INSTRUCTION_MESSAGES[json] ?? json;
  const o = json as Record<string, unknown>;
  if (typeof o['Custom'] === 'number') return `custom program error: 0x${o['Custom'].toString(16)}`;
  return JSON.stringify(json);
}
