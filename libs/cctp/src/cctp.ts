import { type Address, type Hex, concat, getAddress, isHex, numberToHex, pad, parseAbi, size, slice } from 'viem';

/** Circle's CCTP domain ids, by the registry's chain names (developers.circle.com, CCTP supported domains). */
export const CCTP_DOMAINS = {
  ethereum: 0,
  avalanche: 1,
  optimism: 2,
  arbitrum: 3,
  solana: 5,
  base: 6,
  polygon: 7,
} as const satisfies Record<string, number>;

export type CctpChain = keyof typeof CCTP_DOMAINS;

/** The V2 message header version and the BurnMessageV2 body version. */
export const CCTP_MESSAGE_VERSION = 1;
export const CCTP_BURN_BODY_VERSION = 1;
/** Finality levels: a Fast Transfer is attested at "confirmed", a Standard Transfer at "finalized". */
export const FINALITY_THRESHOLD_CONFIRMED = 1000;
export const FINALITY_THRESHOLD_FINALIZED = 2000;

/** The slices of TokenMessengerV2 and MessageTransmitterV2 a rebalancer calls and reads. */
export const CCTP_TOKEN_MESSENGER_V2_ABI = parseAbi([
  'function depositForBurn(uint256 amount, uint32 destinationDomain, bytes32 mintRecipient, address burnToken, bytes32 destinationCaller, uint256 maxFee, uint32 minFinalityThreshold)',
  'function depositForBurnWithHook(uint256 amount, uint32 destinationDomain, bytes32 mintRecipient, address burnToken, bytes32 destinationCaller, uint256 maxFee, uint32 minFinalityThreshold, bytes hookData)',
  'function localMessageTransmitter() view returns (address)',
  'function messageBodyVersion() view returns (uint32)',
  'function feeRecipient() view returns (address)',
  'function remoteTokenMessengers(uint32 domain) view returns (bytes32)',
  'event DepositForBurn(address indexed burnToken, uint256 amount, address indexed depositor, bytes32 mintRecipient, uint32 destinationDomain, bytes32 destinationTokenMessenger, bytes32 destinationCaller, uint256 maxFee, uint32 indexed minFinalityThreshold, bytes hookData)',
  'event MintAndWithdraw(address indexed mintRecipient, uint256 amount, address indexed mintToken, uint256 feeCollected)',
]);

export const CCTP_MESSAGE_TRANSMITTER_V2_ABI = parseAbi([
  'function receiveMessage(bytes message, bytes attestation) returns (bool success)',
  'function sendMessage(uint32 destinationDomain, bytes32 recipient, bytes32 destinationCaller, uint32 minFinalityThreshold, bytes messageBody)',
  'function localDomain() view returns (uint32)',
  'function version() view returns (uint32)',
  'function usedNonces(bytes32 nonce) view returns (uint256)',
  'function isEnabledAttester(address attester) view returns (bool)',
  'function signatureThreshold() view returns (uint256)',
  'event MessageSent(bytes message)',
  'event MessageReceived(address indexed caller, uint32 sourceDomain, bytes32 indexed nonce, bytes32 sender, uint32 indexed finalityThresholdExecuted, bytes messageBody)',
]);

/** A V2 message: the header and the raw body. */
export interface CctpMessage {
  version: number;
  sourceDomain: number;
  destinationDomain: number;
  nonce: Hex;
  sender: Hex;
  recipient: Hex;
  destinationCaller: Hex;
  minFinalityThreshold: number;
  finalityThresholdExecuted: number;
  messageBody: Hex;
}

/** A BurnMessageV2 body (bytes32 fields stay bytes32: the other side may not be EVM). */
export interface CctpBurnBody {
  version: number;
  burnToken: Hex;
  mintRecipient: Hex;
  amount: bigint;
  messageSender: Hex;
  maxFee: bigint;
  feeExecuted: bigint;
  expirationBlock: bigint;
  hookData: Hex;
}

const HEADER_BYTES = 148;
const BURN_HEADER_BYTES = 228;

const u32 = (hex: Hex, at: number): number => Number.parseInt(slice(hex, at, at + 4).slice(2), 16);
const word = (hex: Hex, at: number): Hex => slice(hex, at, at + 32);
const u256 = (hex: Hex, at: number): bigint => BigInt(word(hex, at));
const u32Hex = (n: number): Hex => {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Error(`${n} is not a uint32`);
  return numberToHex(n, { size: 4 });
};
const u256Hex = (n: bigint): Hex => numberToHex(n, { size: 32 });
const bytes32 = (hex: Hex, what: string): Hex => {
  if (!isHex(hex) || size(hex) > 32) throw new Error(`${what} is not 32 bytes`);
  return pad(hex, { size: 32 });
};

/** An EVM address as a bytes32 word (left-padded), as CCTP names accounts. */
export const addressToBytes32 = (address: Address): Hex => pad(getAddress(address), { size: 32 }).toLowerCase() as Hex;

/** The EVM address in a bytes32 word, or undefined when its high 12 bytes are not zero. */
export function bytes32ToAddress(word32: Hex): Address | undefined {
  const w = bytes32(word32, 'word');
  return /^0x0{24}/i.test(w) ? getAddress(`0x${w.slice(26)}`) : undefined;
}

export function decodeCctpMessage(message: Hex): CctpMessage {
  if (!isHex(message) || size(message) < HEADER_BYTES) throw new Error(`a CCTP V2 message has at least ${HEADER_BYTES} bytes`);
  return {
    version: u32(message, 0),
    sourceDomain: u32(message, 4),
    destinationDomain: u32(message, 8),
    nonce: word(message, 12),
    sender: word(message, 44),
    recipient: word(message, 76),
    destinationCaller: word(message, 108),
    minFinalityThreshold: u32(message, 140),
    finalityThresholdExecuted: u32(message, 144),
    messageBody: size(message) === HEADER_BYTES ? '0x' : slice(message, HEADER_BYTES),
  };
}

export function encodeCctpMessage(m: CctpMessage): Hex {
  return concat([
    u32Hex(m.version),
    u32Hex(m.sourceDomain),
    u32Hex(m.destinationDomain),
    bytes32(m.nonce, 'nonce'),
    bytes32(m.sender, 'sender'),
    bytes32(m.recipient, 'recipient'),
    bytes32(m.destinationCaller, 'destinationCaller'),
    u32Hex(m.minFinalityThreshold),
    u32Hex(m.finalityThresholdExecuted),
    m.messageBody,
  ]);
}

export function decodeCctpBurnBody(body: Hex): CctpBurnBody {
  if (!isHex(body) || size(body) < BURN_HEADER_BYTES) throw new Error(`a BurnMessageV2 body has at least ${BURN_HEADER_BYTES} bytes`);
  return {
    version: u32(body, 0),
    burnToken: word(body, 4),
    mintRecipient: word(body, 36),
    amount: u256(body, 68),
    messageSender: word(body, 100),
    maxFee: u256(body, 132),
    feeExecuted: u256(body, 164),
    expirationBlock: u256(body, 196),
    hookData: size(body) === BURN_HEADER_BYTES ? '0x' : slice(body, BURN_HEADER_BYTES),
  };
}

export function encodeCctpBurnBody(b: CctpBurnBody): Hex {
  return concat([
    u32Hex(b.version),
    bytes32(b.burnToken, 'burnToken'),
    bytes32(b.mintRecipient, 'mintRecipient'),
    u256Hex(b.amount),
    bytes32(b.messageSender, 'messageSender'),
    u256Hex(b.maxFee),
    u256Hex(b.feeExecuted),
    u256Hex(b.expirationBlock),
    b.hookData,
  ]);
}
