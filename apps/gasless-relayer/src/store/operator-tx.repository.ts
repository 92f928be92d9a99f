import type { OperatorTxKind, OperatorTxView } from '@xchain/contracts';
import { Inject, Injectable } from '@nestjs/common';
import { Prisma, type PrismaClient } from '@xchain/gasless-relayer-db';
import { DB } from '../db.providers';
import { type LanePayload, type LaneTxWithTxs, insertLaneTx } from './lane-tx.repository';
import { sentOf } from './gasless-order.repository';

/** An operator transaction (D15) settlement asked for: its kind, its key, and the transaction that does it. */
export interface NewOperatorTx {
  /** Its key: the quote hash it settles (a claim: its batch key; a return: its stray deposit's key). */
  key: string;
  chain: string;
  /** The operator account that sends it (on Solana: the filler account, its fee payer). */
  wallet: string;
  payload: LanePayload;
}

/**
 * One kind of operator transaction's table (D15): at most one row per key, ever, which is what makes
 * a repeated SendOperatorTx a lookup and never a second transaction. The row points at the lane
 * transaction that does the work, written with it in one statement; its lane id is `<kind>-<key>`
 * (also its queue job id).
 */
export abstract class OperatorTxTable {
  protected abstract readonly kind: OperatorTxKind;
  /** The table and its key column: constants of each subclass, never input. */
  protected abstract readonly table: string;
  protected abstract readonly keyColumn: string;

  constructor(@Inject(DB) protected readonly db: PrismaClient) {}

  /** The lane id of the transaction of `key`. */
  laneId(key: string): string {
    return `${this.kind}-${key}`;
  }

  /** Stores a queued transaction for `key`; false when one exists already (the first one stands). */
  insert(o: NewOperatorTx): Promise<boolean> {
    return insertLaneTx(
      this.db,
      { id: this.laneId(o.key), kind: this.kind, chain: o.chain, wallet: o.wallet, payload: o.payload },
      Prisma.sql`INSERT INTO ${Prisma.raw(this.table)} (${Prisma.raw(this.keyColumn)}, lane_tx_id) SELECT ${o.key}, lane.id FROM lane`,
    );
  }

  /** The transaction of `key` as SendOperatorTx answers it, or null when none was asked for. */
  async find(key: string): Promise<OperatorTxView | null> {
    const rows = await this.db.$queryRaw<{ lane_tx_id: string }[]>`
      SELECT lane_tx_id FROM ${Prisma.raw(this.table)} WHERE ${Prisma.raw(this.keyColumn)} = ${key}`;
    const id = rows[0]?.lane_tx_id;
    if (!id) return null;
    const tx = await this.db.laneTx.findUnique({ where: { id }, include: { txs: { orderBy: { sentAt: 'asc' } } } });
    return tx ? operatorViewOf(this.kind, key, tx) : null;
  }
}

/** The table of one kind, keyed by `keyColumn` (its constants: never input). Nest binds each subclass with the base's DB. */
function tableOf(kind: OperatorTxKind, table: string, keyColumn: string) {
  abstract class KindTable extends OperatorTxTable {
    protected readonly kind = kind;
    protected readonly table = table;
    protected readonly keyColumn = keyColumn;
  }
  return KindTable;
}

/** Fills of orders on their destination chains, keyed by quote hash. */
@Injectable()
export class FillTxRepository extends tableOf('fill', 'fill_txs', 'quote_hash') {}

/** Cancels of orders on their destination chains, keyed by quote hash. */
@Injectable()
export class CancelTxRepository extends tableOf('cancel', 'cancel_txs', 'quote_hash') {}

/** Refunds of deposits on their source chains, keyed by quote hash. */
@Injectable()
export class RefundTxRepository extends tableOf('refund', 'refund_txs', 'quote_hash') {}

/** Claims of filled orders' deposits to the treasury, keyed by batch (keccak256 of the batch's quote hashes). */
@Injectable()
export class ClaimTxRepository extends tableOf('claim', 'claim_txs', 'batch_key') {}

/** Returns of stray Solana deposits to their senders (D16), keyed by deposit (keccak256 of chain:signature:index). */
@Injectable()
export class ReturnTxRepository extends tableOf('return', 'return_txs', 'deposit_key') {}

/** A rebalancing move's approval of the CCTP TokenMessenger (issue 47), keyed by the move. */
@Injectable()
export class ApproveTxRepository extends tableOf('approve', 'approve_txs', 'move_id') {}

/** A rebalancing move's burn on its source chain (CCTP depositForBurn), keyed by the move. */
@Injectable()
export class BurnTxRepository extends tableOf('burn', 'burn_txs', 'move_id') {}

/** A rebalancing move's mint on its destination chain (CCTP receiveMessage), keyed by the move. */
@Injectable()
export class MintTxRepository extends tableOf('mint', 'mint_txs', 'move_id') {}

/** Each kind's table, by kind: what SendOperatorTx writes and reads. */
@Injectable()
export class OperatorTxTables {
  private readonly byKind: Record<OperatorTxKind, OperatorTxTable>;

  constructor(
    @Inject(FillTxRepository) fills: FillTxRepository,
    @Inject(CancelTxRepository) cancels: CancelTxRepository,
    @Inject(RefundTxRepository) refunds: RefundTxRepository,
    @Inject(ClaimTxRepository) claims: ClaimTxRepository,
    @Inject(ReturnTxRepository) returns: ReturnTxRepository,
    @Inject(ApproveTxRepository) approvals: ApproveTxRepository,
    @Inject(BurnTxRepository) burns: BurnTxRepository,
    @Inject(MintTxRepository) mints: MintTxRepository,
  ) {
    this.byKind = {
      fill: fills,
      cancel: cancels,
      refund: refunds,
      claim: claims,
      return: returns,
      approve: approvals,
      burn: burns,
      mint: mints,
    };
  }

  of(kind: OperatorTxKind): OperatorTxTable {
    return this.byKind[kind];
  }
}

/** Every kind's table over one client, as Nest binds them (for tests that build the relayer's parts by hand). */
export function operatorTxTablesOver(db: PrismaClient): OperatorTxTables {
  return new OperatorTxTables(
    new FillTxRepository(db),
    new CancelTxRepository(db),
    new RefundTxRepository(db),
    new ClaimTxRepository(db),
    new ReturnTxRepository(db),
    new ApproveTxRepository(db),
    new BurnTxRepository(db),
    new MintTxRepository(db),
  );
}

export const OPERATOR_TX_REPOSITORIES = [
  FillTxRepository,
  CancelTxRepository,
  RefundTxRepository,
  ClaimTxRepository,
  ReturnTxRepository,
  ApproveTxRepository,
  BurnTxRepository,
  MintTxRepository,
  OperatorTxTables,
];

/** What SendOperatorTx answers of an operator transaction. */
export function operatorViewOf(kind: OperatorTxKind, key: string, tx: LaneTxWithTxs): OperatorTxView {
  const { status, txHashes, latest, error } = sentOf(tx);
  return {
    kind,
    quote_hash: key,
    chain: tx.chain,
    wallet: tx.wallet,
    status,
    ...(latest ? { tx_hash: latest } : {}),
    tx_hashes: txHashes,
    ...(error ? { error } : {}),
  };
}
