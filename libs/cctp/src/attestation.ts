import { z } from 'zod';

/**
 * The answer of Circle's attestation API (Iris) to `GET /v2/messages/{sourceDomainId}?transactionHash=…`,
 * as documented (developers.circle.com, "Get messages and attestations"): numbers in
 * `decodedMessage` are decimal strings, bytes are `0x` hex, `cctpVersion` is a number. The local
 * stand-in (tools/cctp-attester) answers with exactly this; a client parses either with it.
 */
const hex = z.string().regex(/^0x[0-9a-fA-F]*$/, 'expected 0x-prefixed hex');
const decimal = z.string().regex(/^\d+$/, 'expected a decimal string');

/** The BurnMessageV2 fields; EVM accounts as addresses, any other account as the whole bytes32 word. */
export const CctpWireBurnBodySchema = z.object({
  burnToken: hex,
  mintRecipient: hex,
  amount: decimal,
  messageSender: hex,
  maxFee: decimal,
  feeExecuted: decimal,
  expirationBlock: decimal,
  hookData: hex,
});
export type CctpWireBurnBody = z.infer<typeof CctpWireBurnBodySchema>;

export const CctpWireDecodedMessageSchema = z.object({
  sourceDomain: decimal,
  destinationDomain: decimal,
  nonce: hex,
  sender: hex,
  recipient: hex,
  destinationCaller: hex,
  minFinalityThreshold: decimal,
  finalityThresholdExecuted: decimal,
  messageBody: hex,
  /** The BurnMessageV2 fields, or null for a message that is not a burn. */
  decodedMessageBody: CctpWireBurnBodySchema.nullable(),
});
export type CctpWireDecodedMessage = z.infer<typeof CctpWireDecodedMessageSchema>;

const common = {
  /** 2 for a V2 message (the V2 endpoint also lists V1 ones, as 1). */
  cctpVersion: z.number().int(),
  /** Why a Fast Transfer is attested later (e.g. `insufficient_fee`); absent (or null) when there is no delay. */
  delayReason: z.string().nullish(),
};

/** Signed: what a client hands to `receiveMessage`. Every field is checked. */
export const CctpCompleteMessageSchema = z.object({
  status: z.literal('complete'),
  /** The attested message: nonce, executed finality and, for a burn, the executed fee filled in. */
  message: hex.refine((m) => m.length > 2, 'an attested message is not empty'),
  /** The V2 nonce (bytes32). */
  eventNonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected a bytes32 nonce'),
  /** The attesters' signatures, 65 bytes each. */
  attestation: z.string().regex(/^0x([0-9a-fA-F]{130})+$/, 'expected 65-byte signatures'),
  decodedMessage: CctpWireDecodedMessageSchema,
  ...common,
});

/**
 * Seen, not yet signed: `attestation` is `"PENDING"`. Only the status is relied on: what Circle
 * shows of a message before it signs it (the bytes as emitted, or less) is taken as it comes.
 */
export const CctpPendingMessageSchema = z.object({
  status: z.literal('pending_confirmations'),
  message: z.string(),
  eventNonce: z.string(),
  attestation: z.string(),
  decodedMessage: CctpWireDecodedMessageSchema.nullish(),
  ...common,
});

export const CctpWireMessageSchema = z.discriminatedUnion('status', [CctpCompleteMessageSchema, CctpPendingMessageSchema]);
export type CctpCompleteMessage = z.infer<typeof CctpCompleteMessageSchema>;
export type CctpPendingMessage = z.infer<typeof CctpPendingMessageSchema>;
export type CctpWireMessage = z.infer<typeof CctpWireMessageSchema>;
export type CctpAttestationStatus = CctpWireMessage['status'];

/** The 200 answer: every message of the transaction, by ascending log index. */
export const CctpMessagesResponseSchema = z.object({ messages: z.array(CctpWireMessageSchema) });
export type CctpMessagesResponse = z.infer<typeof CctpMessagesResponseSchema>;

/** The body of every answer that is not 200 (`{"error": "…"}`; 404 until the burn is seen). */
export const CctpErrorResponseSchema = z.object({ error: z.string() });
export type CctpErrorResponse = z.infer<typeof CctpErrorResponseSchema>;
