import { untilHolds } from '@xchain/stack';
import { type Address, encodeAbiParameters, keccak256, toHex } from 'viem';
import type { E2eStack } from './e2e-stack';
import { type GaslessClient, LOCAL_TOKENS } from './gasless-client';
import { ARB_USDC, filler } from './settlement-fixture';

export type RebalanceChain = 'base' | 'arbitrum';

/** A row of the quote-engine's `rebalance_moves`, amounts as text. */
export interface MoveRow {
  id: string;
  src_chain: string;
  dst_chain: string;
  amount: string;
  max_fee: string;
  state: string;
  fee_executed: string | null;
  burn_tx: string | null;
}

/** What the rebalancing suites read and set: the filler's USDC per chain, the moves, and the relayer's transactions of a move. */
export class RebalancingProbe {
  constructor(
    private readonly e2e: E2eStack,
    private readonly g: GaslessClient,
  ) {}

  usdcOn(chain: RebalanceChain): Address {
    return chain === 'base' ? LOCAL_TOKENS.base.USDC : ARB_USDC;
  }

  /** Sets the filler's USDC on a chain (the dev token keeps balances in its first storage slot). */
  async setUsdc(chain: RebalanceChain, amount: bigint): Promise<void> {
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [filler.address, 0n]));
    await this.g
      .client(chain)
      .request({ method: 'anvil_setStorageAt' as never, params: [this.usdcOn(chain), slot, toHex(amount, { size: 32 })] as never });
  }

  usdc(chain: RebalanceChain): Promise<bigint> {
    return this.g.balanceOf(chain, this.usdcOn(chain), filler.address);
  }

  moves(): Promise<MoveRow[]> {
    return this.e2e.query<MoveRow>(
      'quote_engine',
      'SELECT id, src_chain, dst_chain, amount::text, max_fee::text, state, fee_executed::text, burn_tx FROM rebalance_moves ORDER BY planned_at',
    );
  }

  /** The relayer's transactions of a move: kind, chain and status, one row per kind ever. */
  relayerRows(id: string): Promise<{ kind: string; status: string; chain: string }[]> {
    return this.e2e.query(
      'gasless_relayer',
      `SELECT l.kind, l.status, l.chain FROM lane_txs l
       WHERE l.id IN (SELECT lane_tx_id FROM approve_txs WHERE move_id = $1 UNION ALL SELECT lane_tx_id FROM burn_txs WHERE move_id = $1
                      UNION ALL SELECT lane_tx_id FROM mint_txs WHERE move_id = $1)
       ORDER BY l.created_at`,
      [id],
    );
  }

  /** The first `n` moves, once each is received. */
  received(n: number): Promise<MoveRow[]> {
    return untilHolds(
      `${n} move(s) received`,
      () => this.moves(),
      (rows) => rows.length >= n && rows.slice(0, n).every((m) => m.state === 'received'),
      { timeoutMs: 90_000, everyMs: 300 },
    );
  }
}
