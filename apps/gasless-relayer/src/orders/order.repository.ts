import type { GaslessOrderView, GaslessStatus, OperatorTxView } from '@xchain/contracts';
import { Inject, Injectable } from '@nestjs/common';
import type { GaslessOrder, Prisma, PrismaClient } from '@xchain/gasless-relayer-db';
import { Clock } from '@xchain/service-kit';
import { DB } from '../db.providers';

export type { GaslessOrder } from '@xchain/gasless-relayer-db';

export type HoldState = 'holding' | 'held' | 'settled' | 'released';

export interface NewOrder {
  quoteHash: string;
  chain: string;
  owner: string;
  permit2Nonce: bigint;
  deadline: bigint;
  executor: string;
  calldata: string;
  wallet: string;
  partnerId?: string;
  holdUsdMicros?: bigint;
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
  partnerId?: string;
  holdUsdMicros?: bigint;
}

/** An operator transaction (D15): a call of the router from the chain's operator wallet. */
export interface NewOperatorTx {
  kind: 'fill' | 'cancel' | 'refund' | 'claim' | 'return';
  orderHash: string;
  chain: string;
  to: string;
  calldata: string;
  value: bigint;
  wallet: string;
}

/**
 * A Solana operator transaction (D15): built and signed by the relayer from the order, stored whole
 * before it is sent, like a gasless Solana order. `wallet` is its fee payer (the filler account).
 */
export interface NewSvmOperatorTx {
  kind: 'fill' | 'refund' | 'return' | 'claim';
  orderHash: string;
  chain: string;
  wallet: string;
  /** base64 of the signed transaction, exactly the bytes that will be sent. */
  txBase64: string;
  /** Its id: the fee payer's signature, base58. */
  signature: string;
}

/** The row key of an operator transaction: one of each kind per order, ever. */
export const operatorKey = (kind: string, orderHash: string): string => `${kind}-${orderHash}`;

export interface SignedTx {
  hash: string;
  nonce: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  raw: string;
  sentBlock: bigint;
}

export type OrderWithTxs = GaslessOrder & {
  txs: {
    txHash: string;
    nonce: bigint;
    raw: string;
    sentBlock: bigint;
    maxFeePerGas: Prisma.Decimal;
    maxPriorityFeePerGas: Prisma.Decimal;
  }[];
};

/**
 * Every read and write of gasless orders. A status moves only from its expected previous status
 * (a conditional update that reports whether it happened), so two workers, a retry or a restart
 * can never move an order twice.
 */
@Injectable()
export class OrderRepository {
  constructor(
    @Inject(DB) private readonly db: PrismaClient,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** Inserts a queued order; false when one exists for the quote already (the first one stands). */
  async insert(o: NewOrder): Promise<boolean> {
    const rows = await this.db.$executeRaw`
      INSERT INTO gasless_orders (quote_hash, chain, status, owner, permit2_nonce, deadline, executor, calldata, wallet, partner_id, hold_usd_micros, hold_state)
      VALUES (${o.quoteHash}, ${o.chain}, 'queued', ${o.owner}, ${o.permit2Nonce.toString()}::numeric, ${o.deadline}, ${o.executor}, ${o.calldata}, ${o.wallet},
              ${o.partnerId ?? null}, ${o.holdUsdMicros?.toString() ?? null}::numeric, ${o.partnerId ? 'holding' : null})
      ON CONFLICT (quote_hash) DO NOTHING`;
    return rows === 1;
  }

  /** Inserts a queued operator transaction; false when one of that kind exists for the order already (the first one stands). */
  async insertOperatorTx(o: NewOperatorTx): Promise<boolean> {
    const rows = await this.db.$executeRaw`
      INSERT INTO gasless_orders (quote_hash, kind, order_hash, chain, status, owner, executor, calldata, value, wallet)
      VALUES (${operatorKey(o.kind, o.orderHash)}, ${o.kind}, ${o.orderHash}, ${o.chain}, 'queued', ${o.wallet}, ${o.to}, ${o.calldata}, ${o.value.toString()}::numeric, ${o.wallet})
      ON CONFLICT DO NOTHING`;
    return rows === 1;
  }

  /** Inserts a queued Solana operator transaction; false when one of that kind exists for the order already (the first one stands). */
  async insertSvmOperatorTx(o: NewSvmOperatorTx): Promise<boolean> {
    const rows = await this.db.$executeRaw`
      INSERT INTO gasless_orders (quote_hash, kind, order_hash, chain, vm, status, owner, wallet, svm_tx, svm_signature)
      VALUES (${operatorKey(o.kind, o.orderHash)}, ${o.kind}, ${o.orderHash}, ${o.chain}, 'svm', 'queued', ${o.wallet}, ${o.wallet}, ${o.txBase64}, ${o.signature})
      ON CONFLICT DO NOTHING`;
    return rows === 1;
  }

  /** Inserts a queued Solana order; false when one exists for the quote (or for the transaction) already. */
  async insertSvm(o: NewSvmOrder): Promise<boolean> {
    const rows = await this.db.$executeRaw`
      INSERT INTO gasless_orders (quote_hash, chain, vm, status, owner, wallet, svm_tx, svm_signature, partner_id, hold_usd_micros, hold_state)
      VALUES (${o.quoteHash}, ${o.chain}, 'svm', 'queued', ${o.owner}, ${o.feePayer}, ${o.txBase64}, ${o.signature},
              ${o.partnerId ?? null}, ${o.holdUsdMicros?.toString() ?? null}::numeric, ${o.partnerId ? 'holding' : null})
      ON CONFLICT DO NOTHING`;
    return rows === 1;
  }

  /** Solana orders in `status`, oldest first; queued ones only once their sponsor hold (if any) is taken. */
  svmInStatus(status: 'queued' | 'submitted', limit = 500): Promise<GaslessOrder[]> {
    return this.db.gaslessOrder.findMany({
      where: { vm: 'svm', status, ...(status === 'queued' ? { OR: [{ holdState: null }, { holdState: { not: 'holding' } }] } : {}) },
      orderBy: { createdAt: 'asc' },
      take: limit,
    });
  }

  /**
   * queued → submitted for a Solana order, just before its (already stored) transaction is first
   * sent; only while `signature` is still the stored one (an operator row may be signed again).
   */
  async markSvmSubmitted(quoteHash: string, signature: string): Promise<boolean> {
    const r = await this.db.gaslessOrder.updateMany({
      where: { quoteHash, vm: 'svm', status: 'queued', svmSignature: signature },
      data: { status: 'submitted', attempts: { increment: 1 }, updatedAt: this.clock.now() },
    });
    return r.count === 1;
  }

  /**
   * A Solana operator transaction whose blockhash expired unseen, signed again: the new transaction
   * replaces the stored one and the row is queued again, only from `from` with `previous` still the
   * stored signature, so of two passes or two replicas only one re-signs. A transaction that was
   * sent (`from` submitted) keeps its signature in svm_expired_signatures; one that never was is dropped.
   */
  async resignSvm(
    quoteHash: string,
    from: 'queued' | 'submitted',
    previous: string,
    next: { txBase64: string; signature: string },
  ): Promise<boolean> {
    const r = await this.db.gaslessOrder.updateMany({
      where: { quoteHash, vm: 'svm', kind: { not: 'gasless' }, status: from, svmSignature: previous },
      data: {
        status: 'queued',
        svmTx: next.txBase64,
        svmSignature: next.signature,
        ...(from === 'submitted' ? { svmExpiredSigs: { push: previous } } : {}),
        updatedAt: this.clock.now(),
      },
    });
    return r.count === 1;
  }

  find(quoteHash: string): Promise<OrderWithTxs | null> {
    return this.db.gaslessOrder.findUnique({ where: { quoteHash }, include: { txs: { orderBy: { sentAt: 'asc' } } } });
  }

  /** Deletes a queued order whose hold was refused, so the quote can be submitted again once funded. */
  async dropUnheld(quoteHash: string): Promise<void> {
    await this.db.gaslessOrder.deleteMany({ where: { quoteHash, status: 'queued', holdState: 'holding' } });
  }

  async setHold(quoteHash: string, from: HoldState, to: HoldState): Promise<boolean> {
    const r = await this.db.gaslessOrder.updateMany({
      where: { quoteHash, holdState: from },
      data: { holdState: to, updatedAt: this.clock.now() },
    });
    return r.count === 1;
  }

  /**
   * queued → submitted with their wallet nonces and first signed transactions, in one database
   * transaction, before any is broadcast. `batch` is in nonce order; it stops at the first order
   * that is no longer queued, so the stored nonces are always a gap-free run. Returns how many
   * were stored (a prefix of `batch`).
   */
  async markSubmitted(batch: { quoteHash: string; tx: SignedTx }[]): Promise<number> {
    return this.db.$transaction(async (t) => {
      let stored = 0;
      for (const { quoteHash, tx } of batch) {
        const r = await t.gaslessOrder.updateMany({
          where: { quoteHash, status: 'queued' },
          data: { status: 'submitted', txNonce: tx.nonce, attempts: { increment: 1 }, updatedAt: this.clock.now() },
        });
        if (r.count !== 1) break;
        await t.relayTx.create({ data: { quoteHash, ...txRow(tx) } });
        stored++;
      }
      return stored;
    });
  }

  /** The queued orders of one lane, oldest first, whose sponsor hold (if any) is taken. */
  queuedForLane(chain: string, wallet: string, limit: number): Promise<GaslessOrder[]> {
    return this.db.gaslessOrder.findMany({
      where: { chain, wallet, status: 'queued', OR: [{ holdState: null }, { holdState: { not: 'holding' } }] },
      orderBy: { createdAt: 'asc' },
      take: limit,
    });
  }

  /**
   * A wallet's transactions sent and not settled on a chain with nonces in [from, below), in nonce
   * order: the calls a new transaction of the wallet runs behind until they are mined.
   */
  inFlight(chain: string, wallet: string, from: bigint, below: bigint): Promise<GaslessOrder[]> {
    if (below <= from) return Promise.resolve([]);
    return this.db.gaslessOrder.findMany({
      where: { chain, wallet, vm: 'evm', status: 'submitted', chainReplacedAt: null, txNonce: { gte: from, lt: below } },
      orderBy: { txNonce: 'asc' },
    });
  }

  /** Another transaction for a submitted order (a replacement, or the same order re-signed on a new nonce). */
  async addTx(quoteHash: string, tx: SignedTx): Promise<boolean> {
    return this.db.$transaction(async (t) => {
      const r = await t.gaslessOrder.updateMany({
        where: { quoteHash, status: 'submitted' },
        data: { txNonce: tx.nonce, attempts: { increment: 1 }, updatedAt: this.clock.now() },
      });
      if (r.count !== 1) return false;
      await t.relayTx.create({ data: { quoteHash, ...txRow(tx) } });
      return true;
    });
  }

  /** submitted → queued: its nonce was taken by a transaction that is not ours; it is signed again on a fresh nonce. */
  async requeue(quoteHash: string): Promise<boolean> {
    const r = await this.db.gaslessOrder.updateMany({
      where: { quoteHash, status: 'submitted' },
      data: { status: 'queued', txNonce: null, updatedAt: this.clock.now() },
    });
    return r.count === 1;
  }

  /** submitted → confirmed; `gasCostWei` (lamports on Solana) is null when the node no longer tells the fee. */
  async confirm(quoteHash: string, minedTxHash: string, block: bigint, gasCostWei: bigint | null): Promise<boolean> {
    const r = await this.db.gaslessOrder.updateMany({
      where: { quoteHash, status: 'submitted' },
      data: {
        status: 'confirmed',
        minedTxHash,
        confirmedBlock: block,
        gasCostWei: gasCostWei?.toString() ?? null,
        updatedAt: this.clock.now(),
      },
    });
    return r.count === 1;
  }

  /** → failed from `from`; the error starts with its stable reason code. */
  async fail(
    quoteHash: string,
    from: 'queued' | 'submitted',
    error: string,
    mined?: { txHash: string; gasCostWei: bigint | null },
  ): Promise<boolean> {
    const r = await this.db.gaslessOrder.updateMany({
      where: { quoteHash, status: from },
      data: {
        status: 'failed',
        error,
        ...(mined ? { minedTxHash: mined.txHash, gasCostWei: mined.gasCostWei?.toString() ?? null } : {}),
        updatedAt: this.clock.now(),
      },
    });
    return r.count === 1;
  }

  /** Orders of a chain in `status`, oldest first (bounded). */
  inStatus(chain: string, status: GaslessStatus, limit = 500): Promise<OrderWithTxs[]> {
    return this.db.gaslessOrder.findMany({
      where: { chain, status },
      orderBy: { createdAt: 'asc' },
      take: limit,
      include: { txs: { orderBy: { sentAt: 'asc' } } },
    });
  }

  /** Queued orders not touched for `olderThanMs` (their job may be lost with Redis). */
  staleQueued(olderThanMs: number, limit = 1000): Promise<GaslessOrder[]> {
    return this.db.gaslessOrder.findMany({
      where: { status: 'queued', updatedAt: { lt: new Date(this.clock.nowMs() - olderThanMs) } },
      orderBy: { createdAt: 'asc' },
      take: limit,
    });
  }

  /** Finished orders whose ledger hold is still open (settle or release did not complete). */
  openHolds(limit = 500): Promise<GaslessOrder[]> {
    return this.db.gaslessOrder.findMany({ where: { status: { in: ['confirmed', 'failed'] }, holdState: 'held' }, take: limit });
  }

  /** The highest nonce stored for a wallet on a chain (the chain may not have seen it yet); not those of a chain since replaced. */
  async maxNonce(chain: string, wallet: string): Promise<bigint | undefined> {
    const r = await this.db.gaslessOrder.aggregate({ where: { chain, wallet, chainReplacedAt: null }, _max: { txNonce: true } });
    return r._max.txNonce ?? undefined;
  }

  /** A wallet's EVM order mined on the highest nonce on a chain (not a chain since replaced): that nonce and its transaction. */
  lastMined(chain: string, wallet: string): Promise<{ txNonce: bigint | null; minedTxHash: string | null } | null> {
    return this.db.gaslessOrder.findFirst({
      where: { chain, wallet, vm: 'evm', chainReplacedAt: null, minedTxHash: { not: null }, txNonce: { not: null } },
      orderBy: { txNonce: 'desc' },
      select: { txNonce: true, minedTxHash: true },
    });
  }

  /** A wallet's EVM orders submitted on a chain (not a chain since replaced), with their transactions' hashes. */
  submittedWithTxs(chain: string, wallet: string): Promise<{ quoteHash: string; txNonce: bigint | null; txs: { txHash: string }[] }[]> {
    return this.db.gaslessOrder.findMany({
      where: { chain, wallet, vm: 'evm', status: 'submitted', chainReplacedAt: null },
      select: { quoteHash: true, txNonce: true, txs: { select: { txHash: true } } },
    });
  }

  /**
   * A wallet's state on a replaced chain, reset in one transaction: each of `submitted` still
   * submitted on its nonce goes back to `queued` without a nonce (`requeued` lists them), and its
   * finished EVM rows with a nonce keep it as history, `chainReplacedAt` set (`retired` counts them).
   */
  resetReplacedChain(
    chain: string,
    wallet: string,
    submitted: readonly { quoteHash: string; txNonce: bigint | null }[],
  ): Promise<{ requeued: string[]; retired: number }> {
    const now = this.clock.now();
    return this.db.$transaction(async (t) => {
      const requeued: string[] = [];
      for (const o of submitted) {
        // Only as checked: still submitted on the nonce whose transactions the chain does not know.
        const r = await t.gaslessOrder.updateMany({
          where: { quoteHash: o.quoteHash, status: 'submitted', txNonce: o.txNonce },
          data: { status: 'queued', txNonce: null, updatedAt: now },
        });
        if (r.count === 1) requeued.push(o.quoteHash);
      }
      const retired = await t.gaslessOrder.updateMany({
        where: {
          chain,
          wallet,
          vm: 'evm',
          chainReplacedAt: null,
          txNonce: { not: null },
          status: { in: ['confirmed', 'failed'] },
        },
        data: { chainReplacedAt: now },
      });
      return { requeued, retired: retired.count };
    });
  }
}

function txRow(tx: SignedTx) {
  return {
    txHash: tx.hash,
    nonce: tx.nonce,
    maxFeePerGas: tx.maxFeePerGas.toString(),
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas.toString(),
    raw: tx.raw,
    sentBlock: tx.sentBlock,
  };
}

/** What SubmitGaslessOrder and the order view show of an order. */
export function viewOf(o: OrderWithTxs): GaslessOrderView {
  // A Solana order's stored transaction is shown once it was sent (attempts counts the sends begun;
  // an operator row queued again was re-signed, its new transaction not sent yet), after those it replaced.
  const sent = o.svmSignature && o.attempts > 0 && o.status !== 'queued' ? [o.svmSignature] : [];
  const hashes = o.vm === 'svm' ? [...o.svmExpiredSigs, ...sent] : o.txs.map((t) => t.txHash);
  const latest = o.minedTxHash ?? hashes[hashes.length - 1];
  return {
    quote_hash: o.quoteHash,
    status: o.status as GaslessStatus,
    ...(latest ? { tx_hash: latest } : {}),
    tx_hashes: hashes,
    ...(o.error ? { error: o.error } : {}),
  };
}

/** What SendOperatorTx answers of an operator transaction's row. */
export function operatorViewOf(row: OrderWithTxs): OperatorTxView {
  const v = viewOf(row);
  return {
    kind: row.kind as OperatorTxView['kind'],
    quote_hash: row.orderHash!,
    chain: row.chain,
    wallet: row.wallet,
    status: v.status,
    ...(v.tx_hash ? { tx_hash: v.tx_hash } : {}),
    tx_hashes: v.tx_hashes,
    ...(v.error ? { error: v.error } : {}),
  };
}
