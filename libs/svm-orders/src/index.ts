export * from './builders';
export {
  createAssociatedTokenAccountInstruction,
  memoInstruction,
  transferCheckedInstruction,
  solTransferInstruction,
  type TransferCheckedArgs,
} from './instructions';
export * from './keys';
export * from './memo';
export * from './order-terms';
export * from './parse';
export * from './programs';
export * from './stray';
