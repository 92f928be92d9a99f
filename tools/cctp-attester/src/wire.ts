/**
 * The answer of Circle's attestation API to `GET /v2/messages/{sourceDomainId}?transactionHash=…`,
 * as documented (developers.circle.com, "Get messages and attestations"): numbers in
 * `decodedMessage` are decimal strings, bytes are `0x` hex, `cctpVersion` is a number.
 */
export interface CctpMessagesResponse {
  messages: CctpWireMessage[];
}

export type CctpAttestationStatus = 'pending_confirmations' | 'complete';

export interface CctpWireMessage {
  /** The message to pass to `receiveMessage`: the attested bytes once `complete`. */
  message: string;
  /** The V2 nonce (bytes32, hex). */
  eventNonce: string;
  /** The attesters' signatures (65 bytes each) once `complete`, else `"PENDING"`. */
  attestation: string;
  decodedMessage: CctpWireDecodedMessage;
  cctpVersion: 2;
  status: CctpAttestationStatus;
  /** Why a Fast Transfer was attested as a Standard one; absent when there is no delay. */
  delayReason?: 'insufficient_fee';
}

export interface CctpWireDecodedMessage {
  sourceDomain: string;
  destinationDomain: string;
  nonce: string;
  sender: string;
  recipient: string;
  destinationCaller: string;
  minFinalityThreshold: string;
  finalityThresholdExecuted: string;
  messageBody: string;
  /** The BurnMessageV2 fields, or null for a message that is not a burn. */
  decodedMessageBody: CctpWireBurnBody | null;
}

export interface CctpWireBurnBody {
  burnToken: string;
  mintRecipient: string;
  amount: string;
  messageSender: string;
  maxFee: string;
  feeExecuted: string;
  expirationBlock: string;
  hookData: string;
}

/** The body of every answer that is not 200 (Circle's attestation API answers `{"error": "…"}`). */
export interface CctpErrorResponse {
  error: string;
}
