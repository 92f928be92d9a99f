import { Inject, Injectable } from '@nestjs/common';
import { RpcError, type LedgerHold } from '@xchain/contracts';
import { failedPrecondition } from '../caller-guard';
import type { Tx } from '../db.providers';
import { type LedgerEntry, LedgerRepository } from './ledger.repository';

export interface Adjustment {
  partnerId: string;
  direction: 'credit' | 'debit';
  usdMicros: bigint;
  reason: string;
  chain?: string;
  token?: string;
  tokenAmount?: bigint;
}

/** Runs inside the adjustment's transaction, after its entry is written: both land or neither does. */
export type WithinAdjustment = (tx: Tx, entryId: bigint) => Promise<void>;

/**
 * The sponsorship ledger. Entries are only ever inserted; the available balance is their sum.
 * Every write for a partner first locks that partner's row, so concurrent writers are serialised
 * and a balance check can never be raced; a database trigger refuses a negative balance anyway.
 */
@Injectable()
export class LedgerService {
  constructor(@Inject(LedgerRepository) private readonly repo: LedgerRepository) {}

  async balance(partnerId: string): Promise<bigint> {
    return this.repo.balance(partnerId);
  }

  async adjust(a: Adjustment, within?: WithinAdjustment) {
    if (a.usdMicros <= 0n) throw RpcError.invalidArgument([{ field: 'usd_micros', description: 'must be positive' }]);
    return this.repo.transaction(async (tx) => {
      await this.repo.lockPartner(tx, a.partnerId);
      const before = await this.repo.balance(a.partnerId, tx);
      if (a.direction === 'debit' && a.usdMicros > before) {
        throw failedPrecondition('the funding balance is lower than the debit', 'INSUFFICIENT_FUNDING', {
          balance_usd_micros: String(before),
          required_usd_micros: String(a.usdMicros),
        });
      }
      const delta = a.direction === 'credit' ? a.usdMicros : -a.usdMicros;
      const e = await this.repo.insert(tx, {
        partnerId: a.partnerId,
        kind: a.direction,
        deltaUsdMicros: delta,
        amountUsdMicros: a.usdMicros,
        reason: a.reason,
        chain: a.chain ?? null,
        token: a.token ?? null,
        tokenAmount: a.tokenAmount !== undefined ? a.tokenAmount.toString() : null,
      });
      await within?.(tx, e.id);
      return {
        id: String(e.id),
        kind: e.kind,
        delta_usd_micros: String(e.deltaUsdMicros),
        balance_usd_micros: String(before + delta),
        reason: e.reason,
        created_at: e.createdAt.toISOString(),
      };
    });
  }

  /** Reserves `amount` for a quote. Repeating it for the same quote returns the existing hold. */
  async hold(partnerId: string, quoteHash: string, amount: bigint): Promise<LedgerHold> {
    const qh = quoteHash.toLowerCase();
    return this.repo.transaction(async (tx) => {
      await this.repo.lockPartner(tx, partnerId);
      const entries = await this.repo.entriesOfQuote(tx, qh);
      const existing = entries.find((e) => e.kind === 'hold');
      if (existing) {
        if (existing.partnerId !== partnerId) throw failedPrecondition('this quote is held for another partner', 'HOLD_CONFLICT');
        return view(entries, await this.repo.balance(partnerId, tx));
      }
      const balance = await this.repo.balance(partnerId, tx);
      if (amount > balance) {
        throw failedPrecondition('the funding balance cannot cover the relay gas of this quote', 'INSUFFICIENT_FUNDING', {
          balance_usd_micros: String(balance),
          required_usd_micros: String(amount),
        });
      }
      const hold = await this.repo.insert(tx, {
        partnerId,
        kind: 'hold',
        deltaUsdMicros: -amount,
        amountUsdMicros: amount,
        quoteHash: qh,
        reason: 'relay gas reserved',
      });
      return view([hold], balance - amount);
    });
  }

  /** Charges the actual cost, at most the amount held, and returns the rest. Idempotent. */
  async settle(quoteHash: string, actual: bigint): Promise<LedgerHold> {
    return this.finish(quoteHash, 'settle', (held) => {
      const charged = actual < held ? actual : held;
      return { delta: held - charged, amount: charged, reason: 'relay gas charged' };
    });
  }

  /** Returns the whole hold. Idempotent. */
  async release(quoteHash: string): Promise<LedgerHold> {
    return this.finish(quoteHash, 'release', (held) => ({ delta: held, amount: held, reason: 'relay gas hold released' }));
  }

  private async finish(
    quoteHash: string,
    kind: 'settle' | 'release',
    entry: (held: bigint) => { delta: bigint; amount: bigint; reason: string },
  ): Promise<LedgerHold> {
    const qh = quoteHash.toLowerCase();
    const hold = await this.repo.holdOf(qh);
    if (!hold) throw RpcError.notFound(`no hold for quote ${quoteHash}`, 'HOLD_NOT_FOUND');
    return this.repo.transaction(async (tx) => {
      await this.repo.lockPartner(tx, hold.partnerId);
      const entries = await this.repo.entriesOfQuote(tx, qh);
      const done = entries.find((e) => e.kind === 'settle' || e.kind === 'release');
      if (done && done.kind === kind) return view(entries, await this.repo.balance(hold.partnerId, tx));
      if (done)
        throw failedPrecondition(
          `the hold was already ${done.kind === 'settle' ? 'settled' : 'released'}`,
          done.kind === 'settle' ? 'HOLD_SETTLED' : 'HOLD_RELEASED',
        );
      const e = entry(hold.amountUsdMicros);
      const created = await this.repo.insert(tx, {
        partnerId: hold.partnerId,
        kind,
        deltaUsdMicros: e.delta,
        amountUsdMicros: e.amount,
        quoteHash: qh,
        reason: e.reason,
      });
      return view([...entries, created], await this.repo.balance(hold.partnerId, tx));
    });
  }
}

function view(entries: LedgerEntry[], balance: bigint): LedgerHold {
  const hold = entries.find((e) => e.kind === 'hold')!;
  const settle = entries.find((e) => e.kind === 'settle');
  const released = entries.some((e) => e.kind === 'release');
  return {
    quote_hash: hold.quoteHash!,
    partner_id: hold.partnerId,
    status: settle ? 'settled' : released ? 'released' : 'held',
    held_usd_micros: String(hold.amountUsdMicros),
    ...(settle ? { charged_usd_micros: String(settle.amountUsdMicros) } : {}),
    balance_usd_micros: String(balance),
  };
}
