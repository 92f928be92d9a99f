import { Controller, Inject } from '@nestjs/common';
import { Clock } from '@xchain/service-kit';
import { OperatorBalanceRpc, type SettlementReport, SettlementReportRpc } from '@xchain/contracts';
import { Rpc, type RpcBody, RpcClient } from '@xchain/messaging';
import { fromBytes32 } from '@xchain/order-codec';
import type { Hex } from 'viem';
import { RegistryCache } from './registry/registry-cache';
import { SettlementRepository } from './settlement/settlement.repository';
import { StrayDepositRepository } from './settlement/stray-deposits.repository';
import { Rebalancer } from './rebalancing/rebalancer';

/** Deadline of each balance read behind the report: an operator waits, but not for a dead relayer. */
const BALANCE_TIMEOUT_MS = 3000;

/** `partner-admin settlement`: the operator's view of inventory, reservations, what waits and the rebalancing (operator only, D14). Above settlement/ and rebalancing/, which it reads. */
@Controller()
export class SettlementReportHandlers {
  constructor(
    @Inject(SettlementRepository) private readonly repo: SettlementRepository,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(RegistryCache) private readonly registry: Pick<RegistryCache, 'chain'>,
    @Inject(StrayDepositRepository) private readonly strays: Pick<StrayDepositRepository, 'reportRows'>,
    @Inject(Rebalancer) private readonly rebalancer: Pick<Rebalancer, 'report'>,
    @Inject(Clock) private readonly clock: Clock,
  ) {}

  /** An order's bytes32 token as the registry writes it (EIP-55 or base58). */
  private tokenOf(chain: string, bytes32: string): string {
    const vm = this.registry.chain(chain)?.vm;
    return vm ? fromBytes32(vm, bytes32 as Hex) : bytes32;
  }

  @Rpc(SettlementReportRpc)
  async report(req: RpcBody<typeof SettlementReportRpc>): Promise<SettlementReport> {
    const since = req.since ? new Date(req.since) : new Date(this.clock.nowMs() - 7 * 86_400_000);
    const [rows, reconciliation, strays, rebalancing] = await Promise.all([
      this.repo.reportRows(),
      this.repo.reconciliation(since),
      this.strays.reportRows(),
      this.rebalancer.report(),
    ]);
    const inventory = await Promise.all(
      rows.reservations.map(async (r) => {
        const balance = await this.rpc
          .call(OperatorBalanceRpc, { chain: r.dst_chain, token: r.dst_token }, { timeoutMs: BALANCE_TIMEOUT_MS })
          .then((b) => BigInt(b.balance))
          .catch(() => undefined);
        const reserved = BigInt(r.reserved);
        return {
          chain: r.dst_chain,
          token: r.dst_token,
          reserved: r.reserved,
          open_fills: r.n,
          ...(balance !== undefined
            ? { balance: balance.toString(), available: (balance > reserved ? balance - reserved : 0n).toString() }
            : {}),
        };
      }),
    );
    const count = <K extends string>(groups: { _count: { _all: number } }[], key: (g: never) => string | null, names: readonly K[]) =>
      Object.fromEntries(
        names.map((n) => [n, groups.filter((g) => key(g as never) === n).reduce((a, g) => a + g._count._all, 0)]),
      ) as Record<K, number>;
    const now = this.clock.nowMs();
    return {
      inventory,
      open: count(rows.open, (g: { step: string | null }) => g.step, ['fill', 'cancel', 'refund'] as const),
      undecided: rows.undecided,
      oldest_unsettled: rows.oldest
        ? {
            quote_hash: rows.oldest.quote_hash,
            deposited_at: rows.oldest.occurred_at.toISOString(),
            age_secs: Math.max(0, Math.floor((now - rows.oldest.occurred_at.getTime()) / 1000)),
            state: rows.oldest.state ?? 'undecided',
          }
        : null,
      claims: count(rows.claims, (g: { claim: string | null }) => g.claim, ['due', 'batched', 'claimed', 'stuck'] as const),
      reconciliation: reconciliation.map((r) => ({ ...r, token: this.tokenOf(r.chain, r.token) })),
      stuck: rows.stuck.map((s) => ({
        quote_hash: s.quoteHash,
        decision: s.decision,
        reason: s.reason,
        error: s.error,
        since: s.updatedAt.toISOString(),
      })),
      stray_deposits: {
        ...strays.counts,
        stuck_list: strays.stuck.map((s) => ({
          chain: s.chain,
          signature: s.signature,
          memo_index: s.memoIndex,
          quote_hash: s.quoteHash,
          sender: s.sender,
          mint: s.mint,
          amount: s.amount.toFixed(0),
          reason: s.reason,
          error: s.error,
          since: s.updatedAt.toISOString(),
        })),
      },
      rebalancing,
    };
  }
}
