import { CctpMessagesResponseSchema } from '@xchain/cctp';
import { Inject, Injectable } from '@nestjs/common';
import { token } from '@xchain/service-kit';

/** Where and how long the attestation API is asked. */
export interface AttestationConfig {
  url: string;
  timeoutMs: number;
}
export const ATTESTATION_CONFIG = token<AttestationConfig>('ATTESTATION_CONFIG');

/** A burn's attestation: not yet signed, or the message and signature `receiveMessage` takes. */
export type Attested =
  | { kind: 'pending'; why: string }
  | { kind: 'complete'; message: `0x${string}`; attestation: `0x${string}`; feeExecuted: bigint; amount: bigint };

/**
 * Circle's attestation API (`GET /v2/messages/{sourceDomain}?transactionHash=`), read as it answers:
 * 404 until the burn is indexed, `pending_confirmations` until it is signed, then `complete` with the
 * attested message. Every request is bounded by `timeoutMs`; an answer that does not parse as the
 * documented shape is an error (the pass retries), never a guess.
 */
@Injectable()
export class Attestations {
  constructor(@Inject(ATTESTATION_CONFIG) private readonly config: AttestationConfig) {}

  /** The attestation of the one burn of `txHash` on `sourceDomain`, by the TokenMessenger `messenger` (bytes32, lowercase). */
  async ofBurn(sourceDomain: number, txHash: string, messenger: string): Promise<Attested> {
    const url = `${this.config.url.replace(/\/+$/, '')}/v2/messages/${sourceDomain}?transactionHash=${txHash}`;
    const res = await fetch(url, { signal: AbortSignal.timeout(this.config.timeoutMs), headers: { accept: 'application/json' } });
    if (res.status === 404) return { kind: 'pending', why: 'not indexed yet' };
    if (!res.ok) throw new Error(`attestation API answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
    const body = CctpMessagesResponseSchema.parse(await res.json());
    const burns = body.messages.filter(
      (m) => m.decodedMessage?.sender.toLowerCase() === messenger || m.decodedMessage?.sender.toLowerCase() === `0x${messenger.slice(26)}`,
    );
    const m = burns[0] ?? body.messages[0];
    if (!m) return { kind: 'pending', why: 'no message yet' };
    if (m.status !== 'complete') return { kind: 'pending', why: m.delayReason ?? m.status };
    const burn = m.decodedMessage.decodedMessageBody;
    if (!burn) throw new Error(`the message of ${txHash} is not a burn`);
    return {
      kind: 'complete',
      message: m.message as `0x${string}`,
      attestation: m.attestation as `0x${string}`,
      feeExecuted: BigInt(burn.feeExecuted),
      amount: BigInt(burn.amount),
    };
  }
}
