import { join } from 'node:path';
import { Connection, Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { approveCalldata, depositTx } from '@xchain/evm-gasless';
import { orderFromWire } from '@xchain/order-codec';
import { type DevSolana, startDevSolana } from '@xchain/solana-standin';
import { ROOT, type UntilOptions, untilHolds } from '@xchain/stack';
import type { SvmTransactionJson } from '@xchain/contracts';
import { type ClaimStep, associatedTokenAccount, depositInstructions, readOrderSteps } from '@xchain/svm-orders';
import { maxUint256 } from 'viem';
import type { E2eStack } from '../support/e2e-stack';
import { type GaslessClient } from '../support/gasless-client';
import { crossChainOf } from '../support/http';
import { T } from '../support/registry-fixture';
import { ARB_USDC, PLENTY, type SettlementFixture, startSettlementStack } from '../support/settlement-fixture';
import { devSolanaRegistry } from '../support/solana-registry';

jest.setTimeout(180_000);

const SOL_USDC = T.solana.USDC;

/**
 * Settlement in both directions between an EVM chain and Solana (D15), through the gateway: the
 * relayer fills on Solana from the filler account, refunds from the vault and claims filled
 * orders' deposits from the vault to the treasury; the quote-engine's watchers read them back. Local arbitrum (anvil) and the Solana stand-in with the dev keys.
 */
describe('settlement to and from Solana', () => {
  let e2e: E2eStack;
  let g: GaslessClient;
  let s: SettlementFixture;
  let sol: DevSolana;
  let conn: Connection;
  const registryFile = join(ROOT, '.test-data', `registry-settlement-solana-${process.pid}.json`);

  const splBalance = async (owner: PublicKey): Promise<bigint> => {
    const info = await conn.getAccountInfo(associatedTokenAccount(owner, new PublicKey(SOL_USDC)), 'confirmed');
    return info ? info.data.readBigUInt64LE(64) : 0n;
  };
  const POLL: UntilOptions = { timeoutMs: 60_000, everyMs: 200 };

  /** The claims (as the quote-engine's watcher reads them) of every transaction that touched the owner's USDC account. */
  const claimsTo = async (owner: PublicKey): Promise<ClaimStep[]> => {
    const account = associatedTokenAccount(owner, new PublicKey(SOL_USDC));
    const sigs = await conn.getSignaturesForAddress(account, { limit: 100 }, 'confirmed');
    const out: ClaimStep[] = [];
    for (const { signature } of sigs) {
      const res = await fetch(sol.standin.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'getTransaction',
          params: [signature, { encoding: 'json', commitment: 'confirmed' }],
        }),
      });
      out.push(...readOrderSteps(((await res.json()) as { result: SvmTransactionJson }).result).claims);
    }
    return out;
  };

  beforeAll(async () => {
    sol = await startDevSolana({ slotMs: 100 });
    conn = new Connection(sol.standin.url, 'confirmed');
    // The registry names the stand-in's dev vault and fee payer, as `npm start` seeds it.
    devSolanaRegistry(sol, registryFile);
    ({ e2e, g, s } = await startSettlementStack(
      { ...sol.serviceEnv, SOLANA_WATCH_POLL_MS: '100', SOLANA_POLL_MS: '100' },
      { devnet: { chains: ['arbitrum'] }, registryFile },
    ));
  }, 240_000);

  afterAll(async () => {
    await e2e?.stop();
    await sol?.stop();
  });

  it('fills an order to Solana from the filler account: the recipient, who had no token account, gets exactly amount_out', async () => {
    const user = g.newUser();
    const recipient = Keypair.generate().publicKey;
    await g.mint('arbitrum', ARB_USDC, user.address, 20_000_000n);
    await g.setNativeBalance('arbitrum', user.address, 10n ** 17n);
    const q = crossChainOf(
      await g.api.getQuote({
        src_chain: 'arbitrum',
        dst_chain: 'solana',
        src_token: ARB_USDC,
        dst_token: SOL_USDC,
        trade_type: 'TRADE_TYPE_EXACT_INPUT',
        amount: '20000000',
        gas_drop: '',
        recipient: recipient.toBase58(),
        refund_address: user.address,
      }),
    );
    await g.send('arbitrum', { to: ARB_USDC, data: approveCalldata(s.routers['arbitrum']!, maxUint256) }, user);
    await g.send('arbitrum', depositTx(orderFromWire(q.order).order, s.routers['arbitrum']!), user);
    const view = await g.waitOrder(q.quote_hash, (v) => v.status === 'fulfilled' || v.status === 'refunded', 60_000);
    expect(view.status).toBe('fulfilled');
    expect(view.fulfillment).toMatchObject({ chain: 'solana', amount: q.amount_out });
    expect(await splBalance(recipient)).toBe(BigInt(q.amount_out));
  });

  /** A Solana user with `amount` of USDC quotes an order to arbitrum USDC. */
  const quoteFromSolana = async (amount: bigint) => {
    const user = Keypair.generate();
    sol.standin.airdrop(user.publicKey, 10n ** 9n);
    sol.standin.mintTo(user.publicKey, SOL_USDC, amount);
    const recipient = g.newUser().address;
    const q = crossChainOf(
      await s.retryingInventory(() =>
        g.api.getQuote({
          src_chain: 'solana',
          dst_chain: 'arbitrum',
          src_token: SOL_USDC,
          dst_token: ARB_USDC,
          trade_type: 'TRADE_TYPE_EXACT_INPUT',
          amount: amount.toString(),
          gas_drop: '',
          recipient,
          refund_address: user.publicKey.toBase58(),
        }),
      ),
    );
    return { user, recipient, q };
  };
  /** ...and deposits it to the vault with the quote's own two instructions. */
  const depositFromSolana = async ({ user, q }: Awaited<ReturnType<typeof quoteFromSolana>>) => {
    const { blockhash } = await conn.getLatestBlockhash('confirmed');
    const tx = new Transaction({ feePayer: user.publicKey, recentBlockhash: blockhash }).add(
      ...depositInstructions({ order: q.order, owner: user.publicKey, mintDecimals: 6 }),
    );
    tx.sign(user);
    await conn.sendRawTransaction(tx.serialize());
  };

  it('fills an order from Solana on arbitrum, then claims its deposit from the vault to the treasury, once', async () => {
    await s.setInventory(PLENTY);
    const vault = new PublicKey(sol.serviceEnv['DEV_SOLANA_VAULT']!);
    const [vaultBefore, treasuryBefore] = [await splBalance(vault), await splBalance(sol.treasury)];
    const o = await quoteFromSolana(30_000_000n);
    await depositFromSolana(o);
    const { recipient, q } = o;
    const view = await g.waitOrder(q.quote_hash, (v) => v.status === 'fulfilled' || v.status === 'refunded', 60_000);
    expect(view.status).toBe('fulfilled');
    expect(await g.balanceOf('arbitrum', ARB_USDC, recipient as `0x${string}`)).toBe(BigInt(q.amount_out));
    // The deposit reached the vault and leaves it once, to the treasury (D15), as an EVM router's claim does.
    await untilHolds(
      'the deposit claimed to the treasury',
      () => splBalance(sol.treasury),
      (b) => b === treasuryBefore + 30_000_000n,
      POLL,
    );
    expect(await splBalance(vault)).toBe(vaultBefore);
    // Read back as the watcher reads it once confirmed: one claim, from the vault, of exactly the deposit.
    const claims = await untilHolds(
      'the claim confirmed',
      () => claimsTo(sol.treasury),
      (c) => c.length > 0,
      POLL,
    );
    expect(claims).toHaveLength(1);
    expect(claims[0]!.transfers).toEqual([expect.objectContaining({ authority: vault.toBase58(), amount: 30_000_000n })]);
  });

  it('refunds an order from Solana the inventory cannot cover: cancelled on arbitrum, then the vault returns amount_in', async () => {
    await s.setInventory(PLENTY);
    const o = await quoteFromSolana(12_000_000n);
    // Quoted with inventory; by the time the deposit is decided there is none.
    await s.setInventory(0n);
    await depositFromSolana(o);
    const { user, q } = o;
    const view = await g.waitOrder(q.quote_hash, (v) => v.status === 'fulfilled' || v.status === 'refunded', 90_000);
    expect(view.status).toBe('refunded');
    expect(view.refund).toMatchObject({ chain: 'solana', reason: 'INSUFFICIENT_INVENTORY', amount: '12000000', token: SOL_USDC });
    expect(await splBalance(user.publicKey)).toBe(12_000_000n);
    expect(await s.routerRead('arbitrum', 'cancelled', q.quote_hash)).toBe(true);
  });

  it('claims every filled deposit from Solana: the report’s solana open returns to 0 (claimed = deposited − refunded) and the treasury holds the claims', async () => {
    await s.setInventory(PLENTY);
    const treasuryBefore = await splBalance(sol.treasury);
    const orders = await Promise.all([11_000_000n, 22_000_000n, 33_000_000n].map((a) => quoteFromSolana(a)));
    for (const o of orders) await depositFromSolana(o);
    for (const o of orders)
      expect((await g.waitOrder(o.q.quote_hash, (v) => v.status === 'fulfilled' || v.status === 'refunded', 60_000)).status).toBe(
        'fulfilled',
      );
    const report = await s.reportUntil((r) => {
      const row = r.reconciliation.find((x: { chain: string }) => x.chain === 'solana');
      return row?.open === '0' && r.claims.due + r.claims.batched === 0;
    }, 'the Solana deposits claimed');
    // This suite's Solana deposits: 30 and these 66 USDC filled, 12 refunded.
    expect(report.reconciliation.filter((x: { chain: string }) => x.chain === 'solana')).toEqual([
      { chain: 'solana', token: SOL_USDC, deposited: '108000000', claimed: '96000000', refunded: '12000000', open: '0' },
    ]);
    expect(report.claims.stuck).toBe(0);
    // The treasury is the filler (D20): the claims come back to the account fills are paid from.
    expect(await splBalance(sol.treasury)).toBe(treasuryBefore + 66_000_000n);
    // One claim transaction per batch, each moving its batch once: the treasury's claims add up to the suite's 96 USDC filled.
    const claims = await claimsTo(sol.treasury);
    expect(claims.flatMap((c) => c.transfers).reduce((sum, t) => sum + t.amount, 0n)).toBe(96_000_000n);
    expect(new Set(claims.map((c) => c.batchKey)).size).toBe(claims.length);
  });
});
