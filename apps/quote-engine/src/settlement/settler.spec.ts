import { Code, type OperatorTxView, RpcError, type SendOperatorTxRequest } from '@xchain/contracts';
import { XCHAIN_ROUTER_ABI } from '@xchain/evm-gasless';
import { type OrderWire, hashOrder, orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { FakeClock, Periodic } from '@xchain/service-kit';
import { claimBatchKey } from '@xchain/svm-orders';
import { decodeFunctionData } from 'viem';
import type { ChainInfo } from '../registry/registry-cache';
import { Settler } from './settler';
import type { SettlementRepository, Undecided } from './settlement.repository';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const VAULT = 'Fh4uHmtBNbtYwWk5gCvMCkjTsGyH5TLnh6M6x1ZU2Qq8';
const ROUTER = '0x7CCfEacBa472f31962CB515Fe4cE4477D15C4a04';
const CHAINS: Record<string, ChainInfo> = {
  solana: { name: 'solana', vm: 'svm', depositTarget: VAULT } as ChainInfo,
  arbitrum: { name: 'arbitrum', vm: 'evm', depositTarget: ROUTER } as ChainInfo,
};

/** A filled order deposited on Solana (USDC, or SOL) of `amountIn`, salted by `n`. */
function fromSolana(n: number, amountIn: bigint, token: string | null = USDC): { quoteHash: string; order: OrderWire } {
  const order = sampleOrder({
    srcChainId: 792703809n,
    dstChainId: 42161n,
    srcToken: token ? toBytes32('svm', token) : `0x${'00'.repeat(32)}`,
    dstToken: toBytes32('evm', '0xaf88d065e77c8cC2239327C5EDb3A432268e5831'),
    amountIn,
    depositTarget: toBytes32('svm', VAULT),
    salt: `0x${n.toString(16).padStart(64, '0')}`,
  });
  return { quoteHash: hashOrder(order), order: orderToWire(order, []) };
}

type Batch = Awaited<ReturnType<SettlementRepository['claimBatches']>>[number];

/** A settler over fake rows and a relayer answering `answer` to every SendOperatorTx. */
function setUp(opts: {
  chainsDue?: string[];
  batches?: Batch[];
  open?: unknown[];
  answer: (req: SendOperatorTxRequest) => Partial<OperatorTxView>;
}) {
  const asked: SendOperatorTxRequest[] = [];
  const formed: unknown[][] = [];
  const outcomes: unknown[][] = [];
  const filled: string[] = [];
  const warned: string[] = [];
  let batches = opts.batches ?? [];
  const repo = {
    undecided: async () => [],
    open: async () => opts.open ?? [],
    claimChains: async () => opts.chainsDue ?? [],
    formClaimBatches: async (...args: unknown[]) => (formed.push(args), 0),
    claimBatches: async () => batches,
    claimOutcome: async (...args: unknown[]) => {
      outcomes.push(args);
      batches = batches.filter((b) => b.id !== args[0]);
      return 1;
    },
    filled: async (quoteHash: string) => (filled.push(quoteHash), true),
    advance: async () => true,
    filledOnChain: async () => false,
  };
  const rpc = {
    call: async (_rpc: unknown, req: SendOperatorTxRequest) => {
      asked.push(req);
      const a = opts.answer(req);
      return { kind: req.kind, quote_hash: req.quote_hash, chain: req.chain, wallet: 'w', status: 'queued', tx_hashes: [], ...a };
    },
  };
  const registry = {
    chain: (name: string) => CHAINS[name],
    token: (_c: ChainInfo, address: string) => (address === USDC ? ({ decimals: 6 } as never) : undefined),
  };
  const log = { info: () => undefined, warn: (_o: unknown, msg: string) => void warned.push(msg), error: () => undefined };
  const settler = new Settler(
    repo as never,
    rpc as never,
    registry as never,
    { enabled: true, pollMs: 60_000, fillMarginSecs: 60, requestTimeoutMs: 1000, claimEveryMs: 0 },
    log as never,
    undefined,
    undefined,
    undefined,
    new FakeClock(1_800_000_000_000),
  );
  return { settler, asked, formed, outcomes, filled, warned };
}

const batchOf = (chain: string, orders: { quoteHash: string; order: OrderWire }[]): Batch => ({
  id: claimBatchKey(orders.map((o) => o.quoteHash)),
  chain,
  orders: [...orders].sort((a, b) => a.quoteHash.localeCompare(b.quoteHash)),
});

describe('Settler claims (D15)', () => {
  it('forms Solana batches per source token and EVM batches per chain', async () => {
    const { settler, formed } = setUp({ chainsDue: ['solana', 'arbitrum'], answer: () => ({}) });
    await settler.pass();
    expect(formed.map((f) => [f[0], f[1], f[3]])).toEqual([
      ['solana', 50, true],
      ['arbitrum', 50, false],
    ]);
    const idOf = formed[0]![2] as (hashes: string[]) => string;
    const hashes = [fromSolana(1, 1n).quoteHash, fromSolana(2, 1n).quoteHash];
    expect(idOf([...hashes].sort())).toBe(claimBatchKey(hashes));
  });

  it('asks the relayer for one Solana claim of the batch’s orders under its key, with the mint’s decimals; confirmed → claimed', async () => {
    const orders = [fromSolana(1, 440_000_000n), fromSolana(2, 5_000_000n)];
    const batch = batchOf('solana', orders);
    const { settler, asked, outcomes } = setUp({ batches: [batch], answer: () => ({ status: 'confirmed', tx_hash: 'sig' }) });
    await settler.pass();
    expect(asked).toEqual([
      {
        kind: 'claim',
        quote_hash: batch.id,
        chain: 'solana',
        call: { vm: 'svm', claim: { orders: batch.orders.map((o) => o.order), mint_decimals: 6 } },
      },
    ]);
    expect(outcomes).toEqual([[batch.id, 'claimed']]);
    // Claimed: it is asked about no more.
    await settler.pass();
    expect(asked).toHaveLength(1);
  });

  it('claims SOL deposits without decimals, and EVM deposits through the router the orders name', async () => {
    const sol = batchOf('solana', [fromSolana(3, 7n, null)]);
    const evmOrder = sampleOrder({ depositTarget: toBytes32('evm', ROUTER) });
    const evm = batchOf('arbitrum', [{ quoteHash: hashOrder(evmOrder), order: orderToWire(evmOrder, []) }]);
    const { settler, asked } = setUp({ batches: [sol, evm], answer: () => ({}) });
    await settler.pass();
    expect(asked[0]!.call).toEqual({ vm: 'svm', claim: { orders: [sol.orders[0]!.order] } });
    const call = asked[1]!.call as { vm: string; to: string; data: `0x${string}` };
    expect([call.vm, call.to]).toEqual(['evm', ROUTER]);
    expect(decodeFunctionData({ abi: XCHAIN_ROUTER_ABI, data: call.data }).functionName).toBe('claim');
  });

  it('a claim that failed on chain splits its batch; one still on its way, or not sent (relayer away, no treasury), keeps it batched', async () => {
    const batch = batchOf('solana', [fromSolana(4, 1n), fromSolana(5, 2n)]);
    const failed = setUp({ batches: [batch], answer: () => ({ status: 'failed', error: 'TX_REVERTED: x' }) });
    await failed.settler.pass();
    expect(failed.outcomes).toEqual([[batch.id, 'failed', 'claim: TX_REVERTED: x']]);

    for (const status of ['queued', 'submitted'] as const) {
      const waiting = setUp({ batches: [batch], answer: () => ({ status }) });
      await waiting.settler.pass();
      expect(waiting.outcomes).toEqual([]);
    }

    const refused = setUp({
      batches: [batch],
      answer: () => {
        throw new RpcError(Code.FAILED_PRECONDITION, 'no Solana treasury (SOLANA_TREASURY): claims are not sent here');
      },
    });
    await refused.settler.pass();
    await refused.settler.pass();
    expect(refused.outcomes).toEqual([]);
    expect(refused.asked).toHaveLength(2); // asked again every pass
    expect(refused.warned).toEqual(['settlement: claim not sent this pass; retried']); // warned once
  });

  it('a batch on a chain the registry no longer lists waits, unsent', async () => {
    const { settler, asked, warned } = setUp({
      batches: [{ ...batchOf('solana', [fromSolana(6, 1n)]), chain: 'gone' }],
      answer: () => ({}),
    });
    await settler.pass();
    expect(asked).toEqual([]);
    expect(warned).toEqual(['settlement: a claim’s chain is not in the registry; it waits']);
  });

  it('a confirmed fill of an order from Solana makes its deposit due, as one from an EVM chain', async () => {
    const o = fromSolana(7, 30_000_000n);
    const { settler, filled } = setUp({
      open: [{ quoteHash: o.quoteHash, step: 'fill', order: o.order, srcChain: 'solana', dstChain: 'arbitrum' }],
      answer: (req) => (req.kind === 'fill' ? { status: 'confirmed', tx_hash: '0xfill' } : {}),
    });
    await settler.pass();
    expect(filled).toEqual([o.quoteHash]);
  });
});

describe('Settler decisions (D15)', () => {
  const NOW = 1_800_000_000_000;
  /** An order from Arbitrum to Solana of `amountIn` in, `amountOut` out, salted by `n`. */
  function toSolana(n: number, amountIn: bigint, amountOut: bigint): { quoteHash: string; order: OrderWire } {
    const order = sampleOrder({
      srcChainId: 42161n,
      dstChainId: 792703809n,
      srcToken: toBytes32('evm', '0xaf88d065e77c8cC2239327C5EDb3A432268e5831'),
      dstToken: toBytes32('svm', USDC),
      amountIn,
      amountOut,
      depositTarget: toBytes32('evm', ROUTER),
      salt: `0x${n.toString(16).padStart(64, '0')}`,
    });
    return { quoteHash: hashOrder(order), order: orderToWire(order, []) };
  }

  /** A settler whose repository holds `undecided` and whose relayer reads `balance` (or fails). */
  function decider(undecided: Undecided[], balance: bigint | Error) {
    const refunds: { quoteHash: string; reason: string }[] = [];
    const fills: { quoteHash: string; amountOut: bigint; balance: bigint; token: string }[] = [];
    let balanceReads = 0;
    const warned: string[] = [];
    const repo = {
      undecided: async () => undecided,
      open: async () => [],
      claimChains: async () => [],
      claimBatches: async () => [],
      decideRefund: async (u: Undecided, _token: string, reason: string) => void refunds.push({ quoteHash: u.quoteHash, reason }),
      decideFill: async (u: Undecided, token: string, amountOut: bigint, bal: bigint) => {
        fills.push({ quoteHash: u.quoteHash, amountOut, balance: bal, token });
        return amountOut <= bal ? 'fill' : 'refund';
      },
    };
    const rpc = {
      call: async () => {
        balanceReads++;
        if (balance instanceof Error) throw balance;
        return { balance: balance.toString() };
      },
    };
    const registry = { chain: (name: string) => CHAINS[name], token: () => undefined };
    const log = { info: () => undefined, warn: (_o: unknown, msg: string) => void warned.push(msg), error: () => undefined };
    const settler = new Settler(
      repo as never,
      rpc as never,
      registry as never,
      { enabled: true, pollMs: 60_000, fillMarginSecs: 60, requestTimeoutMs: 1000, claimEveryMs: 60_000 },
      log as never,
      { refresh: async () => undefined },
      { changed: async () => undefined },
      undefined,
      new FakeClock(NOW),
    );
    return { settler, refunds, fills, warned, balanceReads: () => balanceReads };
  }

  const undecidedOf = (o: { quoteHash: string; order: OrderWire }, amount: string | null, retainedForMs = 3_600_000): Undecided => ({
    quoteHash: o.quoteHash,
    srcChain: 'arbitrum',
    dstChain: 'solana',
    order: o.order,
    retainedUntil: new Date(NOW + retainedForMs),
    deposit: { chain: 'arbitrum', amount },
  });

  it('fills from inventory: one balance reading per destination token and pass, the order’s amount_out against it', async () => {
    const a = toSolana(1, 1_000_000n, 990_000n);
    const b = toSolana(2, 2_000_000n, 1_980_000n);
    const d = decider([undecidedOf(a, '1000000'), undecidedOf(b, '2000000')], 5_000_000n);
    await d.settler.pass();
    expect(d.balanceReads()).toBe(1);
    expect(d.fills).toEqual([
      { quoteHash: a.quoteHash, amountOut: 990_000n, balance: 5_000_000n, token: USDC },
      { quoteHash: b.quoteHash, amountOut: 1_980_000n, balance: 5_000_000n, token: USDC },
    ]);
    expect(d.refunds).toEqual([]);
  });

  it('refunds a deposit that does not match its order, and one too close to the end of retention, without reading inventory', async () => {
    const short = toSolana(3, 1_000_000n, 990_000n);
    const late = toSolana(4, 1_000_000n, 990_000n);
    const d = decider([undecidedOf(short, '999999'), undecidedOf(late, '1000000', 59_000)], 5_000_000n);
    await d.settler.pass();
    expect(d.refunds).toEqual([
      { quoteHash: short.quoteHash, reason: 'MISMATCH' },
      { quoteHash: late.quoteHash, reason: 'RETENTION' },
    ]);
    expect(d.fills).toEqual([]);
    expect(d.balanceReads()).toBe(0);
  });

  it('decides nothing while the relayer cannot read the balance: the order waits, with a warning', async () => {
    const a = toSolana(5, 1_000_000n, 990_000n);
    const d = decider([undecidedOf(a, '1000000')], RpcError.unavailable('relayer away', 'SERVICE_UNAVAILABLE', 1));
    await d.settler.pass();
    expect(d.fills).toEqual([]);
    expect(d.refunds).toEqual([]);
    expect(d.warned).toEqual(['settlement: no inventory reading; deposits to fill there wait']);
  });

  it('a pass that found nothing to decide, move on or claim says so (its loop then waits longer), one that decided does not', async () => {
    expect(await decider([], 0n).settler.pass()).toBe(Periodic.IDLE);
    expect(await decider([undecidedOf(toSolana(6, 1n, 1n), '1')], 10n).settler.pass()).toBeUndefined();
  });
});
