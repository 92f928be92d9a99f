import type { GaslessStatus, OperatorTxKind } from '@xchain/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { type GaslessOrder, type LaneTx, Prisma, type PrismaClient } from '@xchain/gasless-relayer-db';
import { Clock } from '@xchain/service-kit';
import { DB } from '../db.providers';

export type { LaneTx } from '@xchain/gasless-relayer-db';

/** What a lane transaction is for: the work table that holds it. */
export type LaneKind = 'gasless' | OperatorTxKind;

/** The payload of a new lane transaction: an EVM call, or a signed Solana transaction and its id. */
export type LanePayload =
  { vm: 'evm'; target: string; calldata: string; value: bigint } | { vm: 'svm'; txBase64: string; signature: string };

export interface NewLaneTx {
  id: string;
  kind: LaneKind;
  chain: string;
  wallet: string;
  payload: LanePayload;
}

export interface SignedTx {
  hash: string;
  nonce: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  raw: string;
  sentBlock: bigint;
}

export type LaneTxWithTxs = LaneTx & {
  txs: {
    txHash: string;
    nonce: bigint;
    raw: string;
    sentBlock: bigint;
    maxFeePerGas: Prisma.Decimal;
    maxPriorityFeePerGas: Prisma.Decimal;
  }[];
};

/** A queued lane transaction with its gasless order, if it is one (the sweeper retries an interrupted sponsor hold). */
export type QueuedLaneTx = LaneTx & { gasless: GaslessOrder | null };

/** A lane transaction may be sent unless it is a sponsored gasless order whose hold is not taken yet. */
const HOLD_TAKEN = {
  OR: [{ gasless: { is: null } }, { gasless: { is: { OR: [{ holdState: null }, { holdState: { not: 'holding' } }] } } }],
} satisfies Prisma.LaneTxWhereInput;

const WITH_TXS = { txs: { orderBy: { sentAt: 'asc' } } } satisfies Prisma.LaneTxInclude;

/**
 * The lanes' table (D15): every transaction a hot wallet sends, whatever it is for, with its
 * payload, nonce and send state. A status moves only from its expected previous status (a
 * conditional update that reports whether it happened), so two workers, a retry or a restart can
 * never move a transaction twice; the (chain, wallet, nonce) unique index means two transactions
 * can never be sent on one nonce. What each is for is in its work table (`gasless_orders`,
 * `fill_txs`, …), written in the same statement as the row here (`insertLaneTx`).
 */
@Injectable()
export class LaneTxRepository {
  constructor(
    @Inject(DB) private readonly db: PrismaClient,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  find(id: string): Promise<LaneTxWithTxs | null> {
    return this.db.laneTx.findUnique({ where: { id }, include: WITH_TXS });
  }

  /** Solana transactions in `status`, oldest first; queued ones only once their sponsor hold (if any) is taken. */
  svmInStatus(status: 'queued' | 'submitted', limit = 500): Promise<LaneTx[]> {
    return this.db.laneTx.findMany({
      where: { vm: 'svm', status, ...(status === 'queued' ? HOLD_TAKEN : {}) },
      orderBy: { createdAt: 'asc' },
      take: limit,
    });
  }

  /**
   * queued → submitted for a Solana transaction, just before its (already stored) bytes are first
   * sent; only while `signature` is still the stored one (an operator transaction may be signed again).
   */
  async markSvmSubmitted(id: string, signature: string): Promise<boolean> {
    const r = await this.db.laneTx.updateMany({
      where: { id, vm: 'svm', status: 'queued', svmSignature: signature },
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
    id: string,
    from: 'queued' | 'submitted',
    previous: string,
    next: { txBase64: string; signature: string },
  ): Promise<boolean> {
    const r = await this.db.laneTx.updateMany({
      where: { id, vm: 'svm', kind: { not: 'gasless' }, status: from, svmSignature: previous },
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

  /**
   * queued → submitted with their wallet nonces and first signed transactions, in one database
   * transaction, before any is broadcast. `batch` is in nonce order; it stops at the first one
   * that is no longer queued, so the stored nonces are always a gap-free run. Returns how many
   * were stored (a prefix of `batch`).
   */
  async markSubmitted(batch: { id: string; tx: SignedTx }[]): Promise<number> {
    return this.db.$transaction(async (t) => {
      let stored = 0;
      for (const { id, tx } of batch) {
        const r = await t.laneTx.updateMany({
          where: { id, status: 'queued' },
          data: { status: 'submitted', txNonce: tx.nonce, attempts: { increment: 1 }, updatedAt: this.clock.now() },
        });
        if (r.count !== 1) break;
        await t.relayTx.create({ data: { laneTxId: id, ...txRow(tx) } });
        stored++;
      }
      return stored;
    });
  }

  /** The queued transactions of one lane, oldest first, whose sponsor hold (if any) is taken. */
  queuedForLane(chain: string, wallet: string, limit: number): Promise<LaneTx[]> {
    return this.db.laneTx.findMany({
      where: { chain, wallet, status: 'queued', ...HOLD_TAKEN },
      orderBy: { createdAt: 'asc' },
      take: limit,
    });
  }

  /**
   * A wallet's transactions sent and not settled on a chain with nonces in [from, below), in nonce
   * order: the calls a new transaction of the wallet runs behind until they are mined.
   */
  inFlight(chain: string, wallet: string, from: bigint, below: bigint): Promise<LaneTx[]> {
    if (below <= from) return Promise.resolve([]);
    return this.db.laneTx.findMany({
      where: { chain, wallet, vm: 'evm', status: 'submitted', chainReplacedAt: null, txNonce: { gte: from, lt: below } },
      orderBy: { txNonce: 'asc' },
    });
  }

  /** Another signed transaction for a submitted one (a replacement, or the same call re-signed on a new nonce). */
  async addTx(id: string, tx: SignedTx): Promise<boolean> {
    return this.db.$transaction(async (t) => {
      const r = await t.laneTx.updateMany({
        where: { id, status: 'submitted' },
        data: { txNonce: tx.nonce, attempts: { increment: 1 }, updatedAt: this.clock.now() },
      });
      if (r.count !== 1) return false;
      await t.relayTx.create({ data: { laneTxId: id, ...txRow(tx) } });
      return true;
    });
  }

  /** submitted → queued: its nonce was taken by a transaction that is not ours; it is signed again on a fresh nonce. */
  async requeue(id: string): Promise<boolean> {
    const r = await this.db.laneTx.updateMany({
      where: { id, status: 'submitted' },
      data: { status: 'queued', txNonce: null, updatedAt: this.clock.now() },
    });
    return r.count === 1;
  }

  /** submitted → confirmed; `gasCostWei` (lamports on Solana) is null when the node no longer tells the fee. */
  async confirm(id: string, minedTxHash: string, block: bigint, gasCostWei: bigint | null): Promise<boolean> {
    const r = await this.db.laneTx.updateMany({
      where: { id, status: 'submitted' },
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
    id: string,
    from: 'queued' | 'submitted',
    error: string,
    mined?: { txHash: string; gasCostWei: bigint | null },
  ): Promise<boolean> {
    const r = await this.db.laneTx.updateMany({
      where: { id, status: from },
      data: {
        status: 'failed',
        error,
        ...(mined ? { minedTxHash: mined.txHash, gasCostWei: mined.gasCostWei?.toString() ?? null } : {}),
        updatedAt: this.clock.now(),
      },
    });
    return r.count === 1;
  }

  /** Transactions of a chain in `status`, oldest first (bounded). */
  inStatus(chain: string, status: GaslessStatus, limit = 500): Promise<LaneTxWithTxs[]> {
    return this.db.laneTx.findMany({ where: { chain, status }, orderBy: { createdAt: 'asc' }, take: limit, include: WITH_TXS });
  }

  /** Queued transactions not touched for `olderThanMs` (their job may be lost with Redis). */
  staleQueued(olderThanMs: number, limit = 1000): Promise<QueuedLaneTx[]> {
    return this.db.laneTx.findMany({
      where: { status: 'queued', updatedAt: { lt: new Date(this.clock.nowMs() - olderThanMs) } },
      orderBy: { createdAt: 'asc' },
      take: limit,
      include: { gasless: true },
    });
  }

  /** The highest nonce stored for a wallet on a chain (the chain may not have seen it yet); not those of a chain since replaced. */
  async maxNonce(chain: string, wallet: string): Promise<bigint | undefined> {
    const r = await this.db.laneTx.aggregate({ where: { chain, wallet, chainReplacedAt: null }, _max: { txNonce: true } });
    return r._max.txNonce ?? undefined;
  }

  /** A wallet's EVM transaction mined on the highest nonce on a chain (not a chain since replaced): that nonce and its hash. */
  lastMined(chain: string, wallet: string): Promise<{ txNonce: bigint | null; minedTxHash: string | null } | null> {
    return this.db.laneTx.findFirst({
      where: { chain, wallet, vm: 'evm', chainReplacedAt: null, minedTxHash: { not: null }, txNonce: { not: null } },
      orderBy: { txNonce: 'desc' },
      select: { txNonce: true, minedTxHash: true },
    });
  }

  /** A wallet's EVM transactions submitted on a chain (not a chain since replaced), with their signed copies' hashes. */
  submittedWithTxs(chain: string, wallet: string): Promise<{ id: string; txNonce: bigint | null; txs: { txHash: string }[] }[]> {
    return this.db.laneTx.findMany({
      where: { chain, wallet, vm: 'evm', status: 'submitted', chainReplacedAt: null },
      select: { id: true, txNonce: true, txs: { select: { txHash: true } } },
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
    submitted: readonly { id: string; txNonce: bigint | null }[],
  ): Promise<{ requeued: string[]; retired: number }> {
    const now = this.clock.now();
    return this.db.$transaction(async (t) => {
      const requeued: string[] = [];
      for (const o of submitted) {
        // Only as checked: still submitted on the nonce whose transactions the chain does not know.
        const r = await t.laneTx.updateMany({
          where: { id: o.id, status: 'submitted', txNonce: o.txNonce },
          data: { status: 'queued', txNonce: null, updatedAt: now },
        });
        if (r.count === 1) requeued.push(o.id);
      }
      const retired = await t.laneTx.updateMany({
        where: { chain, wallet, vm: 'evm', chainReplacedAt: null, txNonce: { not: null }, status: { in: ['confirmed', 'failed'] } },
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

/**
 * The statement that stores a new lane transaction and, in the same statement, its work row
 * (`work`: the INSERT into the work table, fed the new id as `lane.id`). Either both rows are
 * written or neither: when the id (or a Solana signature) exists already, nothing is, and the
 * first one stands. Returns how many work rows were written (0 or 1).
 */
export async function insertLaneTx(db: PrismaClient, tx: NewLaneTx, work: Prisma.Sql): Promise<boolean> {
  const p = tx.payload;
  const lane =
    p.vm === 'evm'
      ? Prisma.sql`INSERT INTO lane_txs (id, kind, chain, vm, status, wallet, target, calldata, value)
              VALUES (${tx.id}, ${tx.kind}, ${tx.chain}, 'evm', 'queued', ${tx.wallet}, ${p.target}, ${p.calldata}, ${p.value.toString()}::numeric)
              ON CONFLICT DO NOTHING RETURNING id`
      : Prisma.sql`INSERT INTO lane_txs (id, kind, chain, vm, status, wallet, svm_tx, svm_signature)
              VALUES (${tx.id}, ${tx.kind}, ${tx.chain}, 'svm', 'queued', ${tx.wallet}, ${p.txBase64}, ${p.signature})
              ON CONFLICT DO NOTHING RETURNING id`;
  const rows = await db.$executeRaw`WITH lane AS (${lane}) ${work}`;
  return rows === 1;
}
