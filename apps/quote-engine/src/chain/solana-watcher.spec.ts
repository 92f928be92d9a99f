import { Keypair, PublicKey, SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js';
import type { CursorStore } from '@xchain/chain-watch';
import { OrderEventSchema, type OrderEvent, type SvmTransactionJson } from '@xchain/contracts';
import { ZERO_BYTES32, hashOrder, orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { depositInstructions, memoInstruction, returnMemoText, vaultTokenAccount } from '@xchain/svm-orders';
import type { Logger } from '@xchain/telemetry';
import type { RegistryCache } from '../registry/registry-cache';
import type { NewStrayDeposit } from '../settlement/stray-deposits.repository';
import { type SignatureEntry, SolanaAddressReader, type SolanaChain } from '@xchain/chain-watch';
import { solanaStepHandler } from './solana-steps';
import { SolanaWatcher } from './solana-watcher';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const vault = Keypair.generate().publicKey.toBase58();
const filler = Keypair.generate().publicKey.toBase58();
const user = Keypair.generate().publicKey;
const sig = (n: number) => `${n}`.padStart(3, '0') + '1'.repeat(85);

/** A cluster in memory: per address, entries in chain order; transactions by signature. */
function fakeChain() {
  const byAddress = new Map<string, SignatureEntry[]>();
  const txs = new Map<string, SvmTransactionJson>();
  const calls: { address: string; before?: string }[] = [];
  let confirmed = 100;
  const chain: SolanaChain = {
    genesisHash: async () => 'Genesis1111111111111111111111111111111111111',
    confirmedSlot: async () => confirmed,
    async signaturesForAddress(address, opts) {
      calls.push({ address, ...(opts.before ? { before: opts.before } : {}) });
      const newestFirst = [...(byAddress.get(address) ?? [])].reverse();
      const from = opts.before ? newestFirst.findIndex((e) => e.signature === opts.before) + 1 : 0;
      return newestFirst.slice(from, from + opts.limit);
    },
    transaction: async (s) => txs.get(s) ?? null,
    blockhash: async (slot) => `hash${slot}`,
  };
  const add = (address: string, entry: SignatureEntry, tx?: SvmTransactionJson) => {
    byAddress.set(address, [...(byAddress.get(address) ?? []), entry]);
    if (tx) txs.set(entry.signature, tx);
  };
  return { chain, add, calls, setConfirmed: (s: number) => (confirmed = s) };
}

function memoryCursors() {
  const saved = new Map<string, bigint>();
  const cursors: Pick<CursorStore, 'load' | 'save'> = {
    load: async (n) => saved.get(n),
    save: async (n, b) => void saved.set(n, saved.has(n) && saved.get(n)! > b ? saved.get(n)! : b),
  };
  return { cursors, saved };
}

const silent = { info: () => undefined, warn: () => undefined } as unknown as Logger;

function asConfirmed(instructions: TransactionInstruction[], slot: number, signature: string): SvmTransactionJson {
  const message = new Transaction({ feePayer: user, recentBlockhash: Keypair.generate().publicKey.toBase58() })
    .add(...instructions)
    .compileMessage();
  return {
    slot,
    blockTime: 1_795_000_000 + slot,
    meta: { err: null },
    transaction: {
      signatures: [signature],
      message: {
        accountKeys: message.accountKeys.map((k) => k.toBase58()),
        instructions: message.instructions.map((i) => ({ programIdIndex: i.programIdIndex, accounts: i.accounts, data: i.data })),
      },
    },
  };
}

describe('SolanaAddressReader', () => {
  it('pages back to its position, hands over what is newer oldest first, and resumes from a failure at its slot', async () => {
    const { chain, add, calls } = fakeChain();
    for (let i = 1; i <= 7; i++) add(vault, { signature: sig(i), slot: i, err: null, blockTime: i });
    const { cursors, saved } = memoryCursors();
    const seen: number[] = [];
    let failOn: number | undefined = 5;
    const reader = new SolanaAddressReader(
      'svm-steps:solana:v',
      vault,
      chain,
      cursors,
      async (e) => {
        if (e.slot === failOn) throw new Error('publish failed');
        seen.push(e.slot);
      },
      3,
      2,
    );
    await expect(reader.readOnce()).rejects.toThrow('publish failed');
    expect(seen).toEqual([3, 4]);
    expect(reader.progress).toEqual({}); // no pass completed: nothing for the lag metric yet
    expect(saved.get('svm-steps:solana:v')).toBe(4n); // slots 3 and 4 done: 5 is read again
    // Pages of 2, newest first, stopping at the first page that reaches the position (start 3: slot 2 and older are not wanted).
    expect(calls.map((c) => c.before ?? null)).toEqual([null, sig(6), sig(4)]);
    failOn = undefined;
    calls.length = 0;
    await reader.readOnce();
    expect(seen).toEqual([3, 4, 5, 6, 7]);
    expect(saved.get('svm-steps:solana:v')).toBe(100n); // up to the confirmed slot the listing was made after
    expect(reader.readUpTo).toBe(100n);
    expect(reader.progress).toMatchObject({ head: 100n, read: 100n }); // the chain_watcher_* metrics read this
    expect(calls).toEqual([{ address: vault }, { address: vault, before: sig(6) }]); // page 2 reaches slot 4 ≤ 4: stop
  });

  it('starts at the confirmed slot when it has no position and none is configured', async () => {
    const { chain, add } = fakeChain();
    add(vault, { signature: sig(1), slot: 99, err: null, blockTime: 1 });
    const { cursors, saved } = memoryCursors();
    const seen: string[] = [];
    await new SolanaAddressReader('c', vault, chain, cursors, async (e) => void seen.push(e.signature)).readOnce();
    expect(seen).toEqual([]);
    expect(saved.get('c')).toBe(100n);
  });
});

describe('solanaStepHandler', () => {
  it('publishes a matching deposit with slot, blockhash, time, instruction index and amount; skips failed transactions and unknown quotes', async () => {
    const { chain, add } = fakeChain();
    const order = sampleOrder({
      srcChainId: 792703809n,
      srcToken: ZERO_BYTES32,
      amountIn: 2_000_000n,
      depositTarget: toBytes32('svm', vault),
      refundAddress: toBytes32('svm', user.toBase58()),
    });
    const quoteHash = hashOrder(order);
    const wire = orderToWire(order, []);
    const other = sampleOrder({ ...order, amountIn: 3_000_000n });
    add(
      vault,
      { signature: sig(1), slot: 10, err: null, blockTime: null },
      asConfirmed(depositInstructions({ order: wire, owner: user }), 10, sig(1)),
    );
    add(vault, { signature: sig(2), slot: 11, err: { InstructionError: [0, { Custom: 1 }] }, blockTime: 11 });
    add(
      vault,
      { signature: sig(3), slot: 12, err: null, blockTime: 12 },
      asConfirmed(depositInstructions({ order: orderToWire(other, []), owner: user }), 12, sig(3)),
    );
    const published: { event: OrderEvent; msgId: string }[] = [];
    const warned: string[] = [];
    const handle = solanaStepHandler({
      chainName: 'solana',
      chain,
      quotes: {
        find: async (h) =>
          h === quoteHash ? { srcChain: 'solana', dstChain: 'base', order: wire, retainedUntil: new Date(2_000_000_000_000) } : undefined,
      },
      publisher: { publish: async (event, msgId) => (published.push({ event, msgId }), 'published') },
      fillers: new Set([filler]),
      vault: () => undefined,
      strays: { record: async () => true },
      log: { info: () => undefined, warn: (o: { reason?: string }) => void warned.push(o.reason ?? '') } as never,
    });
    for (const e of await chain.signaturesForAddress(vault, { limit: 10 })) await handle(e);
    expect(published).toEqual([
      {
        event: {
          type: 'deposited',
          quote_hash: quoteHash,
          chain: 'solana',
          tx_hash: sig(1),
          block_number: '10',
          block_hash: 'hash10',
          occurred_at: new Date((1_795_000_000 + 10) * 1000).toISOString(),
          log_index: 1,
          amount: '2000000',
        },
        msgId: `deposited:solana:${sig(1)}:1`,
      },
    ]);
    expect(OrderEventSchema.parse(published[0]!.event)).toEqual(published[0]!.event);
    expect(warned).toEqual(['no such quote']); // the failed one is not even read
  });

  it('records a deposit into the vault that matches no retained quote once, with its sender and reason, and passes over the return quietly', async () => {
    const { chain, add } = fakeChain();
    const order = sampleOrder({
      srcChainId: 792703809n,
      srcToken: ZERO_BYTES32,
      amountIn: 2_000_000n,
      depositTarget: toBytes32('svm', vault),
      refundAddress: toBytes32('svm', user.toBase58()),
    });
    const wire = orderToWire(order, []);
    const quoteHash = hashOrder(order);
    const short = sampleOrder({ ...order, amountIn: 1_500_000n }); // hashes differently: its deposit memo names its own hash
    const late = { signature: sig(4), slot: 20 };
    const retainedUntil = new Date((1_795_000_000 + 15) * 1000); // between slots 13 and 20 (block time = 1_795_000_000 + slot)
    // Deposits: right (slot 10), wrong amount for the stored quote (11), unknown quote (12), right but paid elsewhere (13), right but late (20).
    const wrongAmount = depositInstructions({ order: wire, owner: user });
    wrongAmount[0] = SystemProgram.transfer({ fromPubkey: user, toPubkey: new PublicKey(vault), lamports: 1_999_999 });
    const elsewhere = depositInstructions({ order: wire, owner: user });
    elsewhere[0] = SystemProgram.transfer({ fromPubkey: user, toPubkey: Keypair.generate().publicKey, lamports: 2_000_000 });
    add(
      vault,
      { signature: sig(1), slot: 10, err: null, blockTime: null },
      asConfirmed(depositInstructions({ order: wire, owner: user }), 10, sig(1)),
    );
    add(vault, { signature: sig(2), slot: 11, err: null, blockTime: null }, asConfirmed(wrongAmount, 11, sig(2)));
    add(
      vault,
      { signature: sig(3), slot: 12, err: null, blockTime: null },
      asConfirmed(depositInstructions({ order: orderToWire(short, []), owner: user }), 12, sig(3)),
    );
    add(vault, { signature: sig(5), slot: 13, err: null, blockTime: null }, asConfirmed(elsewhere, 13, sig(5)));
    add(
      vault,
      { ...late, err: null, blockTime: null },
      asConfirmed(depositInstructions({ order: wire, owner: user }), late.slot, late.signature),
    );
    // The vault's return of one of them: a transfer back and the return memo.
    add(
      vault,
      { signature: sig(6), slot: 21, err: null, blockTime: null },
      asConfirmed(
        [
          SystemProgram.transfer({ fromPubkey: new PublicKey(vault), toPubkey: user, lamports: 1_999_999 }),
          memoInstruction(returnMemoText('5'.repeat(88))),
        ],
        21,
        sig(6),
      ),
    );
    const published: string[] = [];
    const recorded = new Map<string, NewStrayDeposit>();
    const warned: string[] = [];
    const handle = solanaStepHandler({
      chainName: 'solana',
      chain,
      quotes: { find: async (h) => (h === quoteHash ? { srcChain: 'solana', dstChain: 'base', order: wire, retainedUntil } : undefined) },
      publisher: { publish: async (_e, msgId) => (published.push(msgId), 'published') },
      fillers: new Set([filler]),
      vault: () => vault,
      strays: {
        record: async (s) => !recorded.has(`${s.signature}:${s.memoIndex}`) && (recorded.set(`${s.signature}:${s.memoIndex}`, s), true),
      },
      log: { info: () => undefined, warn: (o: { reason?: string }, msg: string) => void warned.push(`${msg}: ${o.reason}`) } as never,
    });
    const entries = (await chain.signaturesForAddress(vault, { limit: 10 })).reverse(); // oldest first, as the reader hands them over
    for (const e of entries) await handle(e);
    for (const e of entries) await handle(e); // read again (a restart): nothing new
    expect(published).toEqual([`deposited:solana:${sig(1)}:1`, `deposited:solana:${sig(1)}:1`]);
    expect([...recorded.values()].map((s) => [s.signature, s.reason, s.amount, s.sender, s.mint])).toEqual([
      [sig(2), 'WRONG_AMOUNT', 1_999_999n, user.toBase58(), 'SOL'],
      [sig(3), 'NO_QUOTE', 1_500_000n, user.toBase58(), 'SOL'],
      [late.signature, 'AFTER_RETENTION', 2_000_000n, user.toBase58(), 'SOL'],
    ]);
    expect(recorded.get(`${late.signature}:1`)).toMatchObject({
      quoteHash,
      slot: 20,
      blockTime: new Date((1_795_000_000 + 20) * 1000),
      chain: 'solana',
    });
    // Each stray warned once when first recorded; the one paid elsewhere is skipped as before; the return says nothing.
    expect(warned.filter((w) => w.startsWith('solana stray deposit recorded'))).toHaveLength(3);
    expect(warned.filter((w) => !w.startsWith('solana stray deposit recorded'))).toEqual([
      expect.stringMatching(/^solana order step skipped: paid \w+, not the vault/),
      expect.stringMatching(/^solana order step skipped: paid \w+, not the vault/),
    ]);
  });
});

describe('SolanaWatcher', () => {
  const registryWith = (listed: boolean) =>
    ({
      chain: (name: string) => (listed && name === 'solana' ? { vm: 'svm', depositTarget: vault } : undefined),
      listTokens: () => ({
        tokens: [
          { chain: 'solana', address: '11111111111111111111111111111111' },
          { chain: 'solana', address: USDC },
          { chain: 'base', address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48' },
        ],
      }),
    }) as unknown as Pick<RegistryCache, 'chain' | 'listTokens'>;

  function newWatcher(chain: SolanaChain | null, listed = true) {
    let check: (() => Promise<{ ok: boolean; detail?: string }>) | undefined;
    const { cursors, saved } = memoryCursors();
    const watcher = new SolanaWatcher(
      chain,
      { chainName: 'solana', fillers: [filler], pollMs: 60_000 },
      registryWith(listed),
      cursors,
      { publish: async () => 'published' },
      { find: async () => undefined },
      { record: async () => true },
      { register: (_n: string, c: typeof check) => void (check = c) },
      silent,
    );
    return { watcher, readiness: () => check!(), saved };
  }

  it('is off, and ready, without an RPC', async () => {
    const { watcher, readiness } = newWatcher(null);
    watcher.onApplicationBootstrap();
    expect(await readiness()).toEqual({ ok: true, detail: 'off (SOLANA_RPC_URL unset)' });
  });

  it("reads the vault, the vault's account of each SPL token of the registry, and the fillers, each from its own position", async () => {
    const { chain } = fakeChain();
    const { watcher, readiness, saved } = newWatcher(chain);
    await watcher.readOnce();
    expect([...saved.keys()].sort()).toEqual(
      [vault, vaultTokenAccount(vault, USDC).toBase58(), filler]
        .map((a) => `svm-steps:solana:${a}@Genesis1111111111111111111111111111111111111`)
        .sort(),
    );
    expect(await readiness()).toEqual({ ok: true, detail: '3 accounts: read up to slot 100 (confirmed)' });
    const unlisted = newWatcher(chain, false);
    await unlisted.watcher.readOnce();
    expect((await unlisted.readiness()).detail).toBe(
      '1 accounts: read up to slot 100 (confirmed); vault: not watched: solana is not in the registry',
    );
  });

  it('starts new positions on a new cluster (a fresh local validator under the same URL), and waits while the cluster does not answer', async () => {
    const { chain } = fakeChain();
    let genesis: string | Error = 'GenesisA111111111111111111111111111111111111';
    const { watcher, readiness, saved } = newWatcher({
      ...chain,
      genesisHash: async () => (genesis instanceof Error ? Promise.reject(genesis) : genesis),
    });
    await watcher.readOnce();
    genesis = new Error('fetch failed');
    await watcher.readOnce();
    expect((await readiness()).detail).toBe('3 accounts: read up to slot 100 (confirmed); retrying: fetch failed');
    genesis = 'GenesisB111111111111111111111111111111111111';
    await watcher.readOnce();
    expect([...saved.keys()].filter((k) => k.endsWith('@GenesisB111111111111111111111111111111111111'))).toHaveLength(3);
    expect(saved.size).toBe(6);
    expect((await readiness()).detail).toBe('3 accounts: read up to slot 100 (confirmed)');
  });

  it('reports an account whose reads fail, without stopping the others', async () => {
    const { chain } = fakeChain();
    const failing: SolanaChain = {
      ...chain,
      signaturesForAddress: async (a, o) =>
        a === filler ? Promise.reject(new Error('getSignaturesForAddress: 429 Too many requests')) : chain.signaturesForAddress(a, o),
    };
    const { watcher, readiness, saved } = newWatcher(failing);
    await watcher.readOnce();
    expect(saved.get(`svm-steps:solana:${vault}@Genesis1111111111111111111111111111111111111`)).toBe(100n);
    expect((await readiness()).detail).toBe(`3 accounts: starting; ${filler}: retrying: getSignaturesForAddress: 429 Too many requests`);
  });
});
