import type { GaslessOrderView, GaslessStatus } from '@xchain/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { type GaslessOrder, Prisma, type PrismaClient } from '@xchain/gasless-relayer-db';
import { Clock } from '@xchain/service-kit';
import { DB } from '../db.providers';
import { type LaneTxWithTxs, insertLaneTx } from './lane-tx.repository';

export type { GaslessOrder } from '@xchain/gasless-relayer-db';

export type HoldState = 'holding' | 'held' | 'settled' | 'released';

/** A sponsor_fees order's sponsor and the hold taken on its balance for the relay gas. */
export interface Sponsorship {
  partnerId: string;
  holdUsdMicros: bigint;
}

/** An EVM order: the Permit2 transfer the owner signed, and the executor call built and simulated from it. */
export interface NewOrder {
  quoteHash: string;
  chain: string;
  owner: string;
  permit2Nonce: bigint;
  deadline: bigint;
  executor: string;
  calldata: string;
  wallet: string;
  sponsor?: Sponsorship;
}

/** A Solana order: the user's transaction co-signed by the fee payer, whole, and its id. */
export interface NewSvmOrder {
  quoteHash: string;
  chain: string;
  owner: string;
  feePayer: string;
  /** base64 of the co-signed transaction, exactly the bytes that will be sent. */
  txBase64: string;
  /** Its id: the fee payer's signature, base58. */
  signature: string;
  sponsor?: Sponsorship;
}

/** A gasless order with its deposit's lane transaction (and that transaction's signed copies). */
export type GaslessOrderWithTx = GaslessOrder & { tx: LaneTxWithTxs };

const WITH_TX = { tx: { include: { txs: { orderBy: { sentAt: 'asc' } } } } } satisfies Prisma.GaslessOrderInclude;

/**
 * Gasless orders (D5, D6): what the user signed and who sponsors its gas. An order's deposit is
 * the lane transaction of the same key (its id is the quote hash), written with it in one statement.
 */
@Injectable()
export class GaslessOrderRepository {
  constructor(
    @Inject(DB) private readonly db: PrismaClient,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** Inserts a queued EVM order; false when one exists for the quote already (the first one stands). */
  insert(o: NewOrder): Promise<boolean> {
    return insertLaneTx(
      this.db,
      {
        id: o.quoteHash,
        kind: 'gasless',
        chain: o.chain,
        wallet: o.wallet,
        payload: { vm: 'evm', target: o.executor, calldata: o.calldata, value: 0n },
      },
      this.orderRow(o.owner, o.sponsor, { nonce: o.permit2Nonce, deadline: o.deadline }),
    );
  }

  /** Inserts a queued Solana order; false when one exists for the quote (or for the transaction) already. */
  insertSvm(o: NewSvmOrder): Promise<boolean> {
    return insertLaneTx(
      this.db,
      {
        id: o.quoteHash,
        kind: 'gasless',
        chain: o.chain,
        wallet: o.feePayer,
        payload: { vm: 'svm', txBase64: o.txBase64, signature: o.signature },
      },
      this.orderRow(o.owner, o.sponsor),
    );
  }

  find(quoteHash: string): Promise<GaslessOrderWithTx | null> {
    return this.db.gaslessOrder.findUnique({ where: { quoteHash }, include: WITH_TX });
  }

  /** Deletes a queued order whose hold was refused (its lane transaction with it), so the quote can be submitted again once funded. */
  async dropUnheld(quoteHash: string): Promise<void> {
    await this.db.laneTx.deleteMany({ where: { id: quoteHash, status: 'queued', gasless: { is: { holdState: 'holding' } } } });
  }

  async setHold(quoteHash: string, from: HoldState, to: HoldState): Promise<boolean> {
    const r = await this.db.gaslessOrder.updateMany({
      where: { quoteHash, holdState: from },
      data: { holdState: to, updatedAt: this.clock.now() },
    });
    return r.count === 1;
  }

  /** Finished orders whose ledger hold is still open (settle or release did not complete). */
  openHolds(limit = 500): Promise<GaslessOrderWithTx[]> {
    return this.db.gaslessOrder.findMany({
      where: { holdState: 'held', tx: { status: { in: ['confirmed', 'failed'] } } },
      include: WITH_TX,
      take: limit,
    });
  }

  /** The work row's INSERT, fed the new lane transaction's id (`lane.id`) by `insertLaneTx`. */
  private orderRow(owner: string, sponsor: Sponsorship | undefined, permit2?: { nonce: bigint; deadline: bigint }): Prisma.Sql {
    return Prisma.sql`INSERT INTO gasless_orders (quote_hash, owner, permit2_nonce, deadline, partner_id, hold_usd_micros, hold_state)
      SELECT lane.id, ${owner}, ${permit2?.nonce.toString() ?? null}::numeric, ${permit2?.deadline ?? null}::bigint,
             ${sponsor?.partnerId ?? null}, ${sponsor?.holdUsdMicros.toString() ?? null}::numeric, ${sponsor ? 'holding' : null}
      FROM lane`;
  }
}

/** What SubmitGaslessOrder and the order view show of an order. */
export function viewOf(o: GaslessOrderWithTx): GaslessOrderView {
  const { status, error, txHashes, latest } = sentOf(o.tx);
  return {
    quote_hash: o.quoteHash,
    status,
    ...(latest ? { tx_hash: latest } : {}),
    tx_hashes: txHashes,
    ...(error ? { error } : {}),
  };
}

/** A lane transaction's state as the API shows it: its status, every transaction sent (oldest first) and the one that counts. */
export function sentOf(t: LaneTxWithTxs): { status: GaslessStatus; txHashes: string[]; latest?: string; error?: string } {
  // A Solana transaction is shown once it was sent (attempts counts the sends begun; an operator
  // transaction queued again was re-signed, its new transaction not sent yet), after those it replaced.
  const sent = t.svmSignature && t.attempts > 0 && t.status !== 'queued' ? [t.svmSignature] : [];
  const txHashes = t.vm === 'svm' ? [...t.svmExpiredSigs, ...sent] : t.txs.map((x) => x.txHash);
  const latest = t.minedTxHash ?? txHashes[txHashes.length - 1];
  return { status: t.status as GaslessStatus, txHashes, ...(latest ? { latest } : {}), ...(t.error ? { error: t.error } : {}) };
}
