import { Inject, Injectable } from '@nestjs/common';
import { FetchQuoteRpc, RpcError, type OrderEvent, type Quote } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import { fromBytes32, type Hex } from '@xchain/order-codec';
import type { Tx } from '../db.providers';
import { RegistryClient } from '../registry-client';
import { decodeCursor, encodeCursor, pageSizeOf } from './cursor';
import { type FulfilmentStep, sameStep, stepOf } from './fulfilment-step';
import { type FulfilColumns, ReferralsRepository } from './referrals.repository';

const BPS = 10_000n;
const INTERNAL = { kind: 'internal', service: 'partner-service' } as const;

export type AccrualOutcome = 'accrued' | 'already_accrued' | 'no_partner' | 'no_referrers' | 'withdrawn';

/** What a reorg-withdrawn fulfilment did to the order's accruals. */
export interface WithdrawalOutcome {
  /** Accruals of that fulfilment removed (they were not vouchered yet). */
  reversed: number;
  /** Accruals of that fulfilment already in a voucher (paid out or payable): left as they are. */
  kept: number;
  /** Accruals of the order that stand on another fulfilment (a re-inclusion seen first): untouched. */
  other: number;
  /** The same withdrawal was handled before (a redelivered event). */
  repeated: boolean;
}

/**
 * Referral accruals: when an order is fulfilled, each referrer of its quote earns its bps of the
 * deposit, in the source token, floored (the rounding stays with the operator). Accruals belong to
 * the partner whose API key made the quote; keyless quotes have no partner to credit.
 */
@Injectable()
export class ReferralsService {
  constructor(
    @Inject(ReferralsRepository) private readonly repo: ReferralsRepository,
    @Inject(RpcClient) private readonly rpc: Pick<RpcClient, 'call'>,
    @Inject(RegistryClient) private readonly registry: Pick<RegistryClient, 'chainById' | 'token'>,
  ) {}

  /**
   * Idempotent per (quote, referrer): a redelivered event accrues nothing twice, and a fulfilment a
   * reorg already withdrew accrues nothing at all. When the accruals exist, they now stand on this
   * event's fulfilment (a re-inclusion in another block), which a later withdrawal of the old one
   * then leaves alone.
   */
  async accrue(event: OrderEvent): Promise<AccrualOutcome> {
    const step = stepOf(event);
    if (await this.wasWithdrawn(event.quote_hash, step)) return 'withdrawn';
    const stored = await this.rpc.call(FetchQuoteRpc, { quote_hash: event.quote_hash }, { caller: INTERNAL });
    if (!stored.partner_id) return 'no_partner';
    const content = contentOf(stored.quote);
    const order = content.order;
    const referrers = order.referrers;
    if (referrers.length === 0) return 'no_referrers';
    const srcChainId = order.src_chain_id;
    const chain = await this.registry.chainById(srcChainId);
    if (!chain) throw RpcError.unavailable(`chain id ${srcChainId} is not in the registry`, 'UNKNOWN_CHAIN');
    const token = fromBytes32(chain.vm, order.src_token as Hex);
    const meta = await this.registry.token(chain.chain, token);
    const amountIn = BigInt(order.amount_in);
    const rows = referrers.map((r) => ({
      partnerId: stored.partner_id!,
      quoteHash: stored.quote_hash,
      referrer: fromBytes32(chain.vm, r.account as Hex),
      chain: chain.chain,
      chainId: chain.chain_id,
      token,
      tokenSymbol: meta?.symbol ?? '',
      decimals: meta?.decimals ?? 0,
      amount: ((amountIn * BigInt(r.bps)) / BPS).toString(),
      ...fulfilColumns(step),
    }));
    return this.repo.transaction(async (tx) => {
      await this.repo.lockOrder(tx, event.quote_hash);
      if (await this.wasWithdrawn(event.quote_hash, step, tx)) return 'withdrawn';
      const created = await this.repo.insertAccruals(
        tx,
        rows.filter((r) => r.amount !== '0'),
      );
      if (created > 0) return 'accrued';
      await this.repo.moveAccruals(tx, stored.quote_hash, fulfilColumns(step));
      return 'already_accrued';
    });
  }

  /**
   * A fulfilment a reorg dropped (`removed: true`): the accruals it created are removed unless a
   * voucher already holds them (then they stay: the voucher is signed and may be redeemed; the
   * operator settles that by hand, the outcome says how many). The withdrawal is recorded so a late
   * redelivery of the dropped fulfilment accrues nothing.
   */
  async withdraw(event: OrderEvent): Promise<WithdrawalOutcome> {
    const step = stepOf(event);
    return this.repo.transaction(async (tx) => {
      await this.repo.lockOrder(tx, event.quote_hash);
      if (await this.wasWithdrawn(event.quote_hash, step, tx)) return { reversed: 0, kept: 0, other: 0, repeated: true };
      const accruals = await this.repo.accrualsOfOrder(tx, event.quote_hash);
      // Accruals from before fulfilments were recorded on them stand on the only one there was.
      const ours = accruals.filter((a) => a.fulfilTxHash === null || sameStep(accrualStep(a), step));
      const open = ours.filter((a) => a.voucherId === null).map((a) => a.id);
      // `voucher_id IS NULL` again: a voucher issued meanwhile keeps what it took.
      const removed = open.length > 0 ? await this.repo.deleteOpenAccruals(tx, open) : 0;
      const kept = ours.length - removed;
      await this.repo.recordWithdrawal(tx, {
        quoteHash: event.quote_hash,
        chain: step.chain,
        txHash: step.txHash,
        logIndex: step.logIndex,
        blockHash: step.blockHash,
        reversed: removed,
        kept,
      });
      return { reversed: removed, kept, other: accruals.length - ours.length, repeated: false };
    });
  }

  private async wasWithdrawn(quoteHash: string, step: FulfilmentStep, tx?: Tx): Promise<boolean> {
    const withdrawn = await this.repo.withdrawals(quoteHash, tx);
    return withdrawn.some((w) => sameStep({ chain: w.chain, txHash: w.txHash, logIndex: w.logIndex, blockHash: w.blockHash }, step));
  }

  /** Groups by (referrer, chain, token), listed in that order; `next_cursor` is empty on the last page. */
  async groups(partnerId: string, cursor: string | undefined, pageSize: number | undefined) {
    const size = pageSizeOf(pageSize);
    const after = cursor ? decodeCursor(cursor) : undefined;
    const rows = await this.repo.groups(partnerId, after, size + 1);
    const page = rows.slice(0, size);
    const last = page[page.length - 1];
    return {
      groups: page.map((r) => ({ ...r, decimals: Number(r.decimals) })),
      next_cursor: rows.length > size && last ? encodeCursor(last) : '',
    };
  }
}

function fulfilColumns(step: FulfilmentStep): FulfilColumns {
  return { fulfilChain: step.chain, fulfilTxHash: step.txHash, fulfilLogIndex: step.logIndex, fulfilBlockHash: step.blockHash };
}

function accrualStep(a: {
  fulfilChain: string | null;
  fulfilTxHash: string | null;
  fulfilLogIndex: number | null;
  fulfilBlockHash: string | null;
}): FulfilmentStep {
  return { chain: a.fulfilChain ?? '', txHash: a.fulfilTxHash ?? '', logIndex: a.fulfilLogIndex, blockHash: a.fulfilBlockHash };
}

function contentOf(q: Quote) {
  return 'cross_chain' in q ? q.cross_chain : q.same_chain_swap;
}
