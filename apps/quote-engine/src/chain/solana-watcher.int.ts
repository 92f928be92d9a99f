import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { Connection, Keypair, PublicKey, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { httpSolanaChain, sqlCursorStore } from '@xchain/chain-watch';
import { ORDER_EVENTS_STREAM, OrderEventSchema, type OrderEvent } from '@xchain/contracts';
import { connectNats, type NatsConnection } from '@xchain/messaging';
import { type Order, ZERO_BYTES32, hashOrder, orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { type PrismaClient, createQuoteEngineDb } from '@xchain/quote-engine-db';
import { SystemClock } from '@xchain/service-kit';
import { type SolanaStandin, startSolanaStandin } from '@xchain/solana-standin';
import { type Managed, freePort, newBus, startNats, freshMigratedDatabase, until, type UntilOptions } from '@xchain/stack';
import {
  depositInstructions,
  fillInstructions,
  memoInstruction,
  memoText,
  refundInstructions,
  transferCheckedInstruction,
  associatedTokenAccount,
  vaultTokenAccount,
} from '@xchain/svm-orders';
import type { Logger } from '@xchain/telemetry';
import type { EtaService } from '../eta/eta.service';
import { OrderEventsConsumer } from '../orders/order-events.consumer';
import { OrderEventRepository } from '../orders/order-event.repository';
import type { RegistryCache } from '../registry/registry-cache';
import { jetStreamOrderEventPublisher } from './order-event-publisher';
import { solanaCursorName } from './solana-address-reader';
import { StrayDepositRepository } from '../settlement/stray-deposits.repository';
import { storedQuoteLookup } from './solana-quotes';
import { QuoteRepository } from '../quoting/quote.repository';

import { SolanaWatcher } from './solana-watcher';
import { insertQuotes } from '../quoting/quote-row.testing';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as Logger;
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SOLANA_ID = 792703809n;
/** Reads the stream back, as nothing else in the test may: a user with only these JetStream API rights. */
const READER = {
  'order-events-reader': {
    publish: ['$JS.API.INFO', `$JS.API.STREAM.INFO.${ORDER_EVENTS_STREAM}`, `$JS.API.STREAM.MSG.GET.${ORDER_EVENTS_STREAM}`],
  },
};

const POLL: UntilOptions = { timeoutMs: 20_000 };

describe('Solana watcher on the stand-in, PostgreSQL and NATS', () => {
  let standin: SolanaStandin;
  let conn: Connection;
  let nats: Managed;
  let natsDir: string;
  let nc: NatsConnection;
  let reader: NatsConnection;
  let db: PrismaClient;
  let consumer: OrderEventsConsumer;
  const watchers: SolanaWatcher[] = [];
  const vault = Keypair.generate();
  const filler = Keypair.generate();
  const user = Keypair.generate();
  const recipient = Keypair.generate().publicKey;

  beforeAll(async () => {
    natsDir = mkdtempSync(join(tmpdir(), 'nats-solana-'));
    const [natsPort, monitorPort] = [await freePort(), await freePort()];
    const bus = newBus(READER);
    [standin, nats] = await Promise.all([
      startSolanaStandin({ slotMs: 100 }),
      startNats(natsDir, natsPort, monitorPort, join(natsDir, 'nats.log'), bus.users),
    ]);
    const natsUrl = `nats://127.0.0.1:${natsPort}`;
    nc = await connectNats({ url: natsUrl, name: 'solana-watcher-test', connectTimeoutMs: 5000, ...bus.credentials('quote-engine') });
    reader = await connectNats({
      url: natsUrl,
      name: 'solana-watcher-test-reader',
      connectTimeoutMs: 5000,
      ...bus.credentials('order-events-reader'),
    });
    db = createQuoteEngineDb(await freshMigratedDatabase('quote-engine', 'qe_solana'), 2);
    consumer = new OrderEventsConsumer(
      nc,
      new OrderEventRepository(db),
      { refresh: async () => undefined } as unknown as EtaService,
      silent,
    );
    consumer.onModuleInit();
    conn = new Connection(standin.url, 'confirmed');
    for (const k of [vault, filler, user]) standin.airdrop(k.publicKey, 100n * 10n ** 9n);
    standin.createMint({ address: USDC, decimals: 6 });
    for (const k of [filler, user]) standin.mintTo(k.publicKey, USDC, 1_000n * 10n ** 6n);
    standin.createTokenAccount(vault.publicKey, USDC);
    standin.createTokenAccount(recipient, USDC);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(watchers.map((w) => w.onApplicationShutdown()));
    consumer?.onApplicationShutdown();
    await Promise.all([nc?.close(), reader?.close()]);
    await db?.$disconnect();
    await Promise.all([standin?.stop(), nats?.stop()]);
    rmSync(natsDir, { recursive: true, force: true });
  });

  const newWatcher = () => {
    const registry = {
      chain: (name: string) => (name === 'solana' ? { vm: 'svm', depositTarget: vault.publicKey.toBase58() } : undefined),
      listTokens: () => ({
        tokens: [
          { chain: 'solana', address: '11111111111111111111111111111111' },
          { chain: 'solana', address: USDC },
        ],
      }),
    } as unknown as Pick<RegistryCache, 'chain' | 'listTokens'>;
    const w = new SolanaWatcher(
      httpSolanaChain(standin.url, 5000),
      { chainName: 'solana', fillers: [filler.publicKey.toBase58()], pollMs: 100, startSlot: 0 },
      registry,
      sqlCursorStore(db),
      jetStreamOrderEventPublisher(nc, 5000),
      storedQuoteLookup(new QuoteRepository(db)),
      new StrayDepositRepository(db, new SystemClock()),
      { register: () => undefined },
      silent,
    );
    watchers.push(w);
    w.onApplicationBootstrap();
    return w;
  };

  /** Stores a quote as the quote-engine would, and returns its order and hash. */
  async function storeQuote(over: Partial<Order>, srcChain: string, dstChain: string): Promise<{ order: Order; quoteHash: string }> {
    const now = BigInt(Math.floor(Date.now() / 1000));
    const order = sampleOrder({
      salt: `0x${Buffer.from(Keypair.generate().publicKey.toBytes()).toString('hex')}`,
      issuedAt: now,
      expiresAt: now + 1800n,
      ...over,
    });
    const quoteHash = hashOrder(order);
    await insertQuotes(db, [
      {
        apiKeyId: null,
        partnerId: null,
        quoteHash,
        kind: 'cross_chain',
        srcChain,
        dstChain,
        routeType: 'cross_chain',
        gasless: false,
        sponsorFees: false,
        callerKind: 'keyless',
        order: orderToWire(order, []),
        response: {
          cross_chain: {
            quote_hash: quoteHash,
            amount_in: order.amountIn.toString(),
            amount_out: order.amountOut.toString(),
            min_amount_out: order.minAmountOut.toString(),
          },
        },
        expiresAt: new Date(Number(order.expiresAt) * 1000),
        retainedUntil: new Date(Date.now() + 86_400_000),
      },
    ]);
    return { order, quoteHash };
  }

  const fromSolana = (srcToken: Order['srcToken'], amountIn: bigint): Partial<Order> => ({
    srcChainId: SOLANA_ID,
    dstChainId: 8453n,
    srcToken,
    dstToken: toBytes32('evm', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
    amountIn,
    recipient: toBytes32('evm', '0x71268d7045f6faf62bdea68ce4bae4fe2184fb8b'),
    refundAddress: toBytes32('svm', user.publicKey.toBase58()),
    depositTarget: toBytes32('svm', vault.publicKey.toBase58()),
  });

  /** Signs and sends as a wallet would (preflight on, a confirmed blockhash); the signature and its slot once confirmed. */
  async function send(instructions: TransactionInstruction[], payer: Keypair): Promise<{ signature: string; slot: number }> {
    const { blockhash } = await conn.getLatestBlockhash('confirmed');
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(...instructions);
    tx.sign(payer);
    const signature = await conn.sendRawTransaction(tx.serialize());
    const slot = await until(
      `${signature} confirmed`,
      async () => {
        const s = (await conn.getSignatureStatuses([signature])).value[0];
        return s && s.confirmationStatus !== 'processed' ? s.slot : undefined;
      },
      POLL,
    );
    return { signature, slot };
  }

  async function streamEvents(): Promise<OrderEvent[]> {
    const jsm = await jetstreamManager(reader);
    const { state } = await jsm.streams.info(ORDER_EVENTS_STREAM);
    const out: OrderEvent[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++)
      out.push(OrderEventSchema.parse((await jsm.streams.getMessage(ORDER_EVENTS_STREAM, { seq }))!.json()));
    return out;
  }

  /** Resolves once every watched position has read past `slot`: whatever sits up to there was handled. */
  const readPast = (slot: number) =>
    until(
      `the watcher to read past slot ${slot}`,
      async () => {
        const genesis = await conn.getGenesisHash();
        const names = [vault.publicKey.toBase58(), vaultTokenAccount(vault.publicKey, USDC).toBase58(), filler.publicKey.toBase58()].map(
          (a) => solanaCursorName('solana', a, genesis),
        );
        const rows = await db.chainCursor.findMany({ where: { name: { in: names } } });
        return rows.length === names.length && rows.every((r) => r.block >= BigInt(slot)) ? true : undefined;
      },
      POLL,
    );

  let solDeposit: { order: Order; quoteHash: string };

  it('publishes a SOL deposit and an SPL deposit once each, with slot, blockhash, block time, instruction index and amount', async () => {
    newWatcher();
    solDeposit = await storeQuote(fromSolana(ZERO_BYTES32, 2n * 10n ** 9n), 'solana', 'base');
    const splDeposit = await storeQuote(fromSolana(toBytes32('svm', USDC), 25n * 10n ** 6n), 'solana', 'base');
    const a = await send(depositInstructions({ order: orderToWire(solDeposit.order, []), owner: user.publicKey }), user);
    const b = await send(depositInstructions({ order: orderToWire(splDeposit.order, []), owner: user.publicKey, mintDecimals: 6 }), user);

    const events = await until(
      'both deposits on the stream',
      async () => {
        const e = await streamEvents();
        return e.length >= 2 ? e : undefined;
      },
      POLL,
    );
    const expected = async (tx: { signature: string; slot: number }, quoteHash: string, amount: bigint) => {
      const block = (await conn.getBlock(tx.slot, {
        commitment: 'confirmed',
        transactionDetails: 'none',
        rewards: false,
        maxSupportedTransactionVersion: 0,
      }))!;
      return {
        type: 'deposited',
        quote_hash: quoteHash,
        chain: 'solana',
        tx_hash: tx.signature,
        block_number: String(tx.slot),
        block_hash: block.blockhash,
        occurred_at: new Date(block.blockTime! * 1000).toISOString(),
        log_index: 1,
        amount: amount.toString(),
      };
    };
    // The vault's and its token account's signatures are read by separate cursors: either may come first.
    const byHash = (x: { quote_hash: string }, y: { quote_hash: string }) => x.quote_hash.localeCompare(y.quote_hash);
    expect([...events].sort(byHash)).toEqual(
      [await expected(a, solDeposit.quoteHash, 2n * 10n ** 9n), await expected(b, splDeposit.quoteHash, 25n * 10n ** 6n)].sort(byHash),
    );
    // The quote-engine's own consumer recorded both, with the slot as block number.
    const recorded = await until(
      'both deposits recorded',
      async () => {
        const rows = await db.orderEvent.findMany({ where: { type: 'deposited' }, orderBy: { blockNumber: 'asc' } });
        return rows.length === 2 ? rows : undefined;
      },
      POLL,
    );
    expect(recorded.map((r) => [r.quoteHash, r.chain, r.txHash, r.blockNumber])).toEqual([
      [solDeposit.quoteHash, 'solana', a.signature, BigInt(a.slot)],
      [splDeposit.quoteHash, 'solana', b.signature, BigInt(b.slot)],
    ]);
  }, 60_000);

  it('publishes nothing for the memo of an unknown quote, a wrong amount, or a failed transaction', async () => {
    const before = (await streamEvents()).length;
    const stored = await storeQuote(fromSolana(toBytes32('svm', USDC), 7n * 10n ** 6n), 'solana', 'base');
    const unknown = sampleOrder({ ...fromSolana(ZERO_BYTES32, 10n ** 9n), salt: `0x${'77'.repeat(32)}` }); // never stored
    await send(depositInstructions({ order: orderToWire(unknown, []), owner: user.publicKey }), user);
    const mint = new PublicKey(USDC);
    const short = [
      transferCheckedInstruction({
        source: associatedTokenAccount(user.publicKey, mint),
        mint,
        destination: vaultTokenAccount(vault.publicKey, mint),
        authority: user.publicKey,
        amount: 7n * 10n ** 6n - 1n,
        decimals: 6,
      }),
      memoInstruction(memoText('deposit', stored.quoteHash)),
    ];
    await send(short, user);
    // A deposit that fails on chain (more than the user holds), sent without preflight: it lands with its error.
    const tooMuch = await storeQuote(fromSolana(toBytes32('svm', USDC), 10n ** 12n), 'solana', 'base');
    const { blockhash } = await conn.getLatestBlockhash('confirmed');
    const failing = new Transaction({ feePayer: user.publicKey, recentBlockhash: blockhash }).add(
      ...depositInstructions({ order: orderToWire(tooMuch.order, []), owner: user.publicKey, mintDecimals: 6 }),
    );
    failing.sign(user);
    const failed = await conn.sendRawTransaction(failing.serialize(), { skipPreflight: true });
    const last = await until(
      'the failed deposit to land',
      async () => {
        const s = (await conn.getSignatureStatuses([failed])).value[0];
        return s && s.confirmationStatus !== 'processed' && s.err ? s.slot : undefined;
      },
      POLL,
    );
    await readPast(last);
    expect((await streamEvents()).length).toBe(before);
    expect(await db.orderEvent.count({ where: { quoteHash: { in: [stored.quoteHash, tooMuch.quoteHash, hashOrder(unknown)] } } })).toBe(0);
  }, 60_000);

  it('publishes a fill paid by a filler account as fulfilled and a refund paid by the vault as refunded', async () => {
    const before = (await streamEvents()).length;
    const toSolana = await storeQuote(
      {
        srcChainId: 8453n,
        dstChainId: SOLANA_ID,
        srcToken: toBytes32('evm', '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
        dstToken: toBytes32('svm', USDC),
        amountOut: 50n * 10n ** 6n,
        minAmountOut: 49n * 10n ** 6n,
        gasDrop: 10n ** 7n,
        recipient: toBytes32('svm', recipient.toBase58()),
        refundAddress: toBytes32('evm', '0x71268d7045f6faf62bdea68ce4bae4fe2184fb8b'),
        depositTarget: toBytes32('evm', '0x7CCfEacBa472f31962CB515Fe4cE4477D15C4a04'),
      },
      'base',
      'solana',
    );
    const fill = await send(
      fillInstructions({ order: orderToWire(toSolana.order, []), filler: filler.publicKey, mintDecimals: 6 }),
      filler,
    );
    const refund = await send(refundInstructions({ order: orderToWire(solDeposit.order, []) }), vault);
    const events = await until(
      'the fill and the refund on the stream',
      async () => {
        const e = await streamEvents();
        return e.length >= before + 2 ? e.slice(before) : undefined;
      },
      POLL,
    );
    // The filler's and the vault's signatures are read by separate cursors: either may come first.
    expect([...events].sort((a, b) => a.type.localeCompare(b.type))).toEqual([
      expect.objectContaining({
        type: 'fulfilled',
        quote_hash: toSolana.quoteHash,
        tx_hash: fill.signature,
        block_number: String(fill.slot),
        log_index: 2,
        amount: String(50n * 10n ** 6n),
      }),
      expect.objectContaining({
        type: 'refunded',
        quote_hash: solDeposit.quoteHash,
        tx_hash: refund.signature,
        block_number: String(refund.slot),
        log_index: 1,
        amount: String(2n * 10n ** 9n),
      }),
    ]);
    expect(await conn.getTokenAccountBalance(associatedTokenAccount(recipient, USDC))).toMatchObject({
      value: { amount: String(50n * 10n ** 6n) },
    });
    await until(
      'the fill and the refund recorded',
      async () =>
        (await db.orderEvent.count({
          where: {
            OR: [
              { quoteHash: toSolana.quoteHash, type: 'fulfilled' },
              { quoteHash: solDeposit.quoteHash, type: 'refunded' },
            ],
          },
        })) === 2
          ? true
          : undefined,
      POLL,
    );
  }, 60_000);

  it('publishes nothing twice when a watcher starts again from the beginning', async () => {
    const before = await streamEvents();
    const recorded = await db.orderEvent.count();
    await Promise.all(watchers.map((w) => w.onApplicationShutdown()));
    await db.chainCursor.deleteMany({});
    const slot = await conn.getSlot('confirmed');
    newWatcher();
    await readPast(slot);
    expect(await streamEvents()).toEqual(before);
    expect(await db.orderEvent.count()).toBe(recorded);
  }, 60_000);
});
