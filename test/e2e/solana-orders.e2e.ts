import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Connection, Keypair, Transaction, type TransactionInstruction } from '@solana/web3.js';
import type { XchainClient } from '@xchain/client';
import { type SolanaStandin, startSolanaStandin } from '@xchain/solana-standin';
import { ROOT, untilHolds } from '@xchain/stack';
import { depositInstructions, fillInstructions } from '@xchain/svm-orders';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { crossChainOf, gatewayClient } from '../support/http';
import { EVM_USER, T } from '../support/registry-fixture';

jest.setTimeout(120_000);

const USDC = T.solana.USDC;
const units = (n: number) => BigInt(n) * 10n ** 6n;

/**
 * Solana steps as a user sees them: a quote from Solana deposited by the user's own transaction,
 * and a quote to Solana filled by a filler account, both read from the stand-in by the
 * quote-engine's Solana watcher and shown in the order view through the gateway.
 */
describe('Solana deposits and fills in the order view', () => {
  let standin: SolanaStandin;
  let conn: Connection;
  let e2e: E2eStack;
  const user = Keypair.generate();
  const filler = Keypair.generate();
  const recipient = Keypair.generate().publicKey;

  let api: XchainClient;
  type QuoteBody = Parameters<XchainClient['getQuote']>[0];
  const quote = async (body: Omit<QuoteBody, 'trade_type'>) =>
    crossChainOf(await api.getQuote({ trade_type: 'TRADE_TYPE_EXACT_INPUT', gas_drop: '', gasless: false, ...body }));
  const send = async (instructions: TransactionInstruction[], payer: Keypair) => {
    const { blockhash } = await conn.getLatestBlockhash('confirmed');
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(...instructions);
    tx.sign(payer);
    return conn.sendRawTransaction(tx.serialize());
  };
  const viewWhen = (quoteHash: string, status: string) =>
    untilHolds(
      `order ${quoteHash} ${status}`,
      () => api.getOrder({ quote_hash: quoteHash }),
      (view) => view.status === status,
      { everyMs: 100 },
    );
  const landed = async (signature: string) => {
    const tx = (await conn.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }))!;
    expect(tx.meta!.err).toBeNull();
    return { block_number: String(tx.slot), at: new Date(tx.blockTime! * 1000).toISOString().replace('.000Z', 'Z') };
  };

  beforeAll(async () => {
    standin = await startSolanaStandin({ slotMs: 100 });
    conn = new Connection(standin.url, 'confirmed');
    const registry = JSON.parse(readFileSync(join(ROOT, 'config/registry.json'), 'utf8')) as {
      chains: { chain: string; deposit_target: string }[];
    };
    const vault = registry.chains.find((c) => c.chain === 'solana')!.deposit_target;
    standin.createMint({ address: USDC, decimals: 6 });
    standin.createTokenAccount(vault, USDC);
    standin.createTokenAccount(recipient, USDC);
    for (const k of [user, filler]) {
      standin.airdrop(k.publicKey, 10n ** 10n);
      standin.mintTo(k.publicKey, USDC, units(1000));
    }
    e2e = await startE2eStack({
      PRICE_POLL_MS: '600000',
      PRICE_MAX_AGE_SECS: '7200',
      SOLANA_RPC_URL: standin.url,
      SOLANA_FILLER_ACCOUNTS: filler.publicKey.toBase58(),
      SOLANA_WATCH_POLL_MS: '100',
    });
    api = gatewayClient(e2e.gatewayUrl);
  }, 180_000);

  afterAll(async () => {
    await e2e?.stop();
    await standin?.stop();
  });

  it("shows the user's own deposit from Solana, with its signature, slot and block time", async () => {
    const q = await quote({
      src_chain: 'solana',
      dst_chain: 'arbitrum',
      src_token: USDC,
      dst_token: T.arbitrum.USDC,
      amount: units(25).toString(),
      recipient: EVM_USER,
      refund_address: user.publicKey.toBase58(),
    });
    const signature = await send(depositInstructions({ order: q.order, owner: user.publicKey, mintDecimals: 6 }), user);
    const view = await viewWhen(q.quote_hash, 'deposited');
    expect(view.deposit).toEqual({ chain: 'solana', tx_hash: signature, ...(await landed(signature)) });
  });

  it('shows a fill paid on Solana by a filler account', async () => {
    const q = await quote({
      src_chain: 'arbitrum',
      dst_chain: 'solana',
      src_token: T.arbitrum.USDC,
      dst_token: USDC,
      amount: units(40).toString(),
      recipient: recipient.toBase58(),
      refund_address: EVM_USER,
    });
    const signature = await send(fillInstructions({ order: q.order, filler: filler.publicKey, mintDecimals: 6 }), filler);
    const view = await viewWhen(q.quote_hash, 'fulfilled');
    expect(view.fulfillment).toEqual({ chain: 'solana', tx_hash: signature, ...(await landed(signature)), amount: q.amount_out });
    // The quote-engine's own health port, not the public API (the client has no operation for it): plain fetch.
    const health = (await (await fetch(`http://127.0.0.1:${e2e.ports['quote-engine']}/readyz`)).json()) as any;
    expect(health.checks.solana_watcher).toEqual({
      ok: true,
      detail: expect.stringMatching(/^\d+ accounts: read up to slot \d+ \(confirmed\)$/),
    });
  });
});
