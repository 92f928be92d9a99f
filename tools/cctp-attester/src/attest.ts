import {
  type CctpBurnBody,
  type CctpMessage,
  type CctpWireBurnBody,
  type CctpWireMessage,
  FINALITY_THRESHOLD_CONFIRMED,
  FINALITY_THRESHOLD_FINALIZED,
  bytes32ToAddress,
  decodeCctpBurnBody,
  decodeCctpMessage,
  encodeCctpBurnBody,
  encodeCctpMessage,
} from '@xchain/cctp';
import { type Hex, encodePacked, keccak256 } from 'viem';

/** When the stand-in attests, and what it charges. */
export interface AttestPolicy {
  /** Source blocks after the burn's block before a Standard Transfer is attested (finalized). */
  confirmations: bigint;
  /** Source blocks after the burn's block before a Fast Transfer is attested (confirmed). */
  fastConfirmations: bigint;
  /** The Fast Transfer fee in basis points of the amount, rounded down; a burn whose `maxFee` is below it is attested as a Standard Transfer. */
  fastFeeBps: bigint;
}

/** One `MessageSent` of the source transaction, as emitted (nonce and executed finality zero). */
export interface SentMessage {
  logIndex: number;
  message: Hex;
}

export interface AttestInput {
  sourceDomain: number;
  txHash: Hex;
  /** The domain's TokenMessenger (bytes32): only its messages carry a burn body. */
  tokenMessenger: Hex;
  /** The block holding the transaction and the source chain's latest block. */
  txBlock: bigint;
  head: bigint;
  sent: SentMessage[];
  policy: AttestPolicy;
  /** Answer every message as pending whatever the blocks on top (an attestation the service withholds). */
  withhold?: boolean;
  /** Signs keccak256(message): 65 bytes r, s, v. */
  sign: (digest: Hex) => Promise<Hex>;
}

/**
 * What Circle's service does to a message before it signs it: assigns the nonce (here a hash of
 * the source domain, transaction and log index, so every poll gets the same one), sets the
 * finality it attested at and, for a burn, the fee it executed. Pending messages are answered
 * with the bytes as emitted and `"PENDING"` for the attestation.
 */
export async function attestMessages(input: AttestInput): Promise<CctpWireMessage[]> {
  const out: CctpWireMessage[] = [];
  for (const sent of [...input.sent].sort((a, b) => a.logIndex - b.logIndex)) {
    const emitted = decodeCctpMessage(sent.message);
    const nonce = keccak256(encodePacked(['uint32', 'bytes32', 'uint256'], [input.sourceDomain, input.txHash, BigInt(sent.logIndex)]));
    const burn = emitted.sender.toLowerCase() === input.tokenMessenger.toLowerCase() ? decodeCctpBurnBody(emitted.messageBody) : undefined;
    const { executed, fee, delayed } = finality(emitted, burn, input.policy.fastFeeBps);
    const needed = executed === FINALITY_THRESHOLD_CONFIRMED ? input.policy.fastConfirmations : input.policy.confirmations;
    const complete = !input.withhold && input.head - input.txBlock >= needed;
    const attested: CctpMessage = {
      ...emitted,
      nonce,
      finalityThresholdExecuted: executed,
      messageBody: burn ? encodeCctpBurnBody({ ...burn, feeExecuted: fee, expirationBlock: 0n }) : emitted.messageBody,
    };
    const shown = complete ? attested : emitted;
    const message = complete ? encodeCctpMessage(attested) : sent.message;
    out.push({
      message,
      eventNonce: nonce,
      attestation: complete ? await input.sign(keccak256(message)) : 'PENDING',
      decodedMessage: {
        sourceDomain: String(shown.sourceDomain),
        destinationDomain: String(shown.destinationDomain),
        nonce: shown.nonce,
        sender: account(shown.sender),
        recipient: account(shown.recipient),
        destinationCaller: account(shown.destinationCaller),
        minFinalityThreshold: String(shown.minFinalityThreshold),
        finalityThresholdExecuted: String(shown.finalityThresholdExecuted),
        messageBody: shown.messageBody,
        decodedMessageBody: burn ? wireBurn(decodeCctpBurnBody(shown.messageBody)) : null,
      },
      cctpVersion: 2,
      status: complete ? 'complete' : 'pending_confirmations',
      ...(delayed ? { delayReason: 'insufficient_fee' as const } : {}),
    });
  }
  return out;
}

/** A Fast Transfer (asked at confirmed or below) when its `maxFee` covers the fee, else Standard. */
function finality(m: CctpMessage, burn: CctpBurnBody | undefined, feeBps: bigint) {
  if (m.minFinalityThreshold > FINALITY_THRESHOLD_CONFIRMED) return { executed: FINALITY_THRESHOLD_FINALIZED, fee: 0n, delayed: false };
  const fee = burn ? (burn.amount * feeBps) / 10_000n : 0n;
  if (burn && (fee > burn.maxFee || (fee > 0n && fee >= burn.amount)))
    return { executed: FINALITY_THRESHOLD_FINALIZED, fee: 0n, delayed: true };
  return { executed: FINALITY_THRESHOLD_CONFIRMED, fee, delayed: false };
}

/** An EVM account as its address, anything else as the whole word. */
const account = (word: Hex): string => bytes32ToAddress(word) ?? word;

function wireBurn(b: CctpBurnBody): CctpWireBurnBody {
  return {
    burnToken: account(b.burnToken),
    mintRecipient: account(b.mintRecipient),
    amount: b.amount.toString(),
    messageSender: account(b.messageSender),
    maxFee: b.maxFee.toString(),
    feeExecuted: b.feeExecuted.toString(),
    expirationBlock: b.expirationBlock.toString(),
    hookData: b.hookData,
  };
}
