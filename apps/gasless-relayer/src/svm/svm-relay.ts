import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@xchain/telemetry';
import { type LaneTx, LaneTxRepository } from '../store/lane-tx.repository';
import { StatusEvents } from '../relay/status-events';
import { Sender } from '../relay/sender';
import { LOGGER, Periodic, token } from '@xchain/service-kit';
import { SolanaRpc } from './solana-rpc';
import { storedTxFacts } from './svm-transaction';

/** Publishes a finished order's state and closes its sponsor hold (the EVM sender's, shared). */
export type Finished = (chain: string, quoteHash: string) => Promise<void>;

/**
 * Signs a Solana operator transaction again over a new blockhash, from `from` with its stored
 * signature unchanged; true when this call did it (false: another pass or replica got there first).
 */
export type Resign = (order: LaneTx, from: 'queued' | 'submitted') => Promise<boolean>;

/** Who signs expired operator transactions again (the operator's SvmResigner); null without a filler key (SOLANA_FILLER_KEY). */
export interface Resigner {
  resign: Resign;
}
export const SVM_RESIGN = token<Resigner | null>('SVM_RESIGN');

/** How often the relay passes over the Solana orders (SOLANA_POLL_MS). */
export const SVM_POLL_MS = token<number>('SVM_POLL_MS');

/** The Solana relay where the relayer has an RPC and a fee payer or a filler key, else null. */
export const SVM_RELAY = token<SvmRelay | null>('SVM_RELAY');

/**
 * Sends and follows Solana orders, from the database alone. A queued order's transaction is
 * already stored, signed: it is marked submitted and sent as it is (no preflight). A submitted one
 * is polled with getSignatureStatuses: `confirmed` (or finalized) settles it, confirmed or failed
 * by its own error; unseen while its blockhash is valid, the same bytes are sent again (the same
 * signature: it can land once at most); unseen once the blockhash has expired, it can never land.
 * Then a gasless order fails BLOCKHASH_EXPIRED (only its user can sign again), and an operator
 * transaction (D15) is signed again by `resign` and queued, its old signature kept in its history.
 * Nothing here builds a transaction, so a kill -9 anywhere costs a delay, never a second payment.
 */
@Injectable()
export class SvmRelay {
  private readonly loop: Periodic;

  constructor(
    @Inject(LaneTxRepository) private readonly txs: LaneTxRepository,
    @Inject(SolanaRpc) private readonly rpc: SolanaRpc,
    @Inject(StatusEvents) private readonly events: StatusEvents,
    /** Publishes a finished order's state and closes its sponsor hold (the EVM sender's, shared). */
    @Inject(Sender) private readonly sender: { finished: Finished },
    @Inject(SVM_POLL_MS) pollMs: number,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(SVM_RESIGN) private readonly resigner?: Resigner | null,
  ) {
    this.loop = new Periodic(
      () => this.pass(),
      pollMs,
      (err) => this.log.warn({ chain: 'solana', err: message(err) }, 'Solana relay pass failed'),
    );
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Sends a just-accepted order now rather than at the next pass (which would send it otherwise). */
  wake(quoteHash: string): void {
    void (async () => {
      const order = await this.txs.find(quoteHash);
      if (order?.vm === 'svm' && order.status === 'queued') await this.sendFirst(order);
    })().catch((err: unknown) =>
      this.log.warn({ quote_hash: quoteHash, err: message(err) }, 'Solana order not sent yet; the next pass sends it'),
    );
  }

  async pass(): Promise<void> {
    const [queued, submitted] = await Promise.all([this.txs.svmInStatus('queued'), this.txs.svmInStatus('submitted')]);
    const each = (o: LaneTx, step: (o: LaneTx) => Promise<void>) =>
      step(o).catch((err: unknown) => this.log.warn({ quote_hash: o.id, err: message(err) }, 'Solana order not followed this pass'));
    await Promise.all([...queued.map((o) => each(o, (x) => this.sendFirst(x))), ...submitted.map((o) => each(o, (x) => this.follow(x)))]);
  }

  /** queued → submitted, then the first send. An order whose blockhash expired before it was ever sent ends as an expired one. */
  private async sendFirst(order: LaneTx): Promise<void> {
    const { signature, blockhash } = storedTxFacts(order.svmTx!);
    if (!(await this.rpc.isBlockhashValid(blockhash))) return this.expired(order, 'queued', signature);
    if (!(await this.txs.markSvmSubmitted(order.id, signature))) return; // another pass got there first, or it was signed again
    if (order.kind === 'gasless')
      this.events.publish(order.chain, { quote_hash: order.id, status: 'submitted', tx_hash: signature, tx_hashes: [signature] });
    await this.send(order, signature);
  }

  private async follow(order: LaneTx): Promise<void> {
    const { signature, blockhash } = storedTxFacts(order.svmTx!);
    if (await this.settle(order, signature)) return;
    if (await this.rpc.isBlockhashValid(blockhash)) {
      await this.send(order, signature);
      return;
    }
    // Expired: from now on it cannot land. Seen after all (it landed just before)? Then the next pass settles it.
    if (await this.rpc.signatureStatus(signature)) return;
    await this.expired(order, 'submitted', signature);
  }

  /** The transaction can never land: an operator transaction is signed again, a gasless order fails. */
  private async expired(order: LaneTx, from: 'queued' | 'submitted', signature: string): Promise<void> {
    if (order.kind !== 'gasless') {
      // Without the keys (not configured any more) it waits, still unsent, until they are back.
      if (!this.resigner) throw new Error('an operator transaction expired and no Solana operator key is configured to sign it again');
      if (await this.resigner.resign(order, from))
        this.log.info({ quote_hash: order.id, expired: signature }, 'Solana operator transaction expired without landing; signed again');
      return;
    }
    if (await this.txs.fail(order.id, from, expiredError(signature))) {
      if (from === 'submitted') this.log.info({ quote_hash: order.id, signature }, 'Solana transaction expired without landing');
      await this.sender.finished(order.chain, order.id);
    }
  }

  /** True when the signature is known to the node (settled now, or still short of `confirmed`). */
  private async settle(order: LaneTx, signature: string): Promise<boolean> {
    const status = await this.rpc.signatureStatus(signature);
    if (!status) return false;
    if (status.confirmationStatus !== 'confirmed' && status.confirmationStatus !== 'finalized') return true;
    const fee = await this.rpc.feeOf(signature).catch(() => undefined);
    const done =
      status.err === null || status.err === undefined
        ? await this.txs.confirm(order.id, signature, BigInt(status.slot), fee ?? null)
        : await this.txs.fail(
            order.id,
            'submitted',
            `TX_REVERTED: ${signature} failed in slot ${status.slot}: ${JSON.stringify(status.err)}`,
            { txHash: signature, gasCostWei: fee ?? null },
          );
    if (done) await this.sender.finished(order.chain, order.id);
    return true;
  }

  /** Sends the stored bytes. A refusal or an RPC failure is logged: the next pass looks again and decides. */
  private async send(order: LaneTx, signature: string): Promise<void> {
    try {
      await this.rpc.send(order.svmTx!);
    } catch (err) {
      this.log.warn({ quote_hash: order.id, signature, err: message(err) }, 'Solana send did not go through; the next pass looks again');
    }
  }
}

const expiredError = (signature: string) =>
  `BLOCKHASH_EXPIRED: the transaction ${signature} did not land before its blockhash expired; request a new quote and sign again`;
const message = (err: unknown) => (err instanceof Error ? err.message.split('\n')[0]! : String(err));
