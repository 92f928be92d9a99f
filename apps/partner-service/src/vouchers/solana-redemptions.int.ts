import { createHash, randomBytes } from 'node:crypto';
import { Keypair, Transaction } from '@solana/web3.js';
import { type Hex, toBytes32 } from '@xchain/order-codec';
import { type VoucherStruct, buildSolanaVoucherRedemption, signVoucher } from '@xchain/partner-chain';
import { type PrismaClient, createPartnerServiceDb } from '@xchain/partner-service-db';
import { HealthRegistry, RandomIds } from '@xchain/service-kit';
import { freshMigratedDatabase, until, type UntilOptions } from '@xchain/stack';
import type { Logger } from '@xchain/telemetry';
import { privateKeyToAddress } from 'viem/accounts';
import type { PartnersConfig } from '../config';
import { ChainCursorsRepository } from '../chain/chain-cursors.repository';
import type { RegistryClient } from '../registry-client';
import { solanaVoucherCursorName } from './solana-redemptions-reader';
import { httpSolanaChain } from '@xchain/chain-watch';
import { TestSolanaRpc } from './solana-redemptions.testing';
import { SolanaRedemptionsWatcher } from './solana-redemptions-watcher';
import { SolanaRpc } from './solana-rpc';
import { VouchersService } from './vouchers.service';
import { VouchersRepository } from './vouchers.repository';

const SIGNER_KEY: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const key = (n: number) => Keypair.fromSeed(new Uint8Array(32).fill(n));
const PROGRAM = key(9).publicKey.toBase58();
const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const PAYER = key(7);
/** One referrer per voucher: the redeemed one, the failed one, the look-alike one. */
const REFERRERS = [key(21), key(22), key(23)].map((k) => k.publicKey.toBase58());

const POLL: UntilOptions = { timeoutMs: 20_000, failOnError: true };

/**
 * Solana vouchers issued on PostgreSQL, redeemed by real signed transactions served over HTTP in
 * Solana's JSON-RPC wire format (the voucher program has no binary to run here, so the cluster's
 * answers stand in for it), read by the reader and seen on the partner's voucher listing.
 */
describe('Solana voucher redemptions', () => {
  let db: PrismaClient;
  let rpc: TestSolanaRpc;
  let vouchers: VouchersService;
  const partnerId = 'ptn_solvouch';
  const config = { voucher_routers: { solana: PROGRAM, base: '0xC4F27487227A8E1187c41dAe95667DB991f38C1A' } } as unknown as PartnersConfig;
  const logs: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const log = {
    info: (fields: Record<string, unknown>, msg: string) => logs.push({ level: 'info', fields, msg }),
    warn: (fields: Record<string, unknown>, msg: string) => logs.push({ level: 'warn', fields, msg }),
  } as unknown as Logger;
  const watchers: SolanaRedemptionsWatcher[] = [];
  const health = new HealthRegistry('partner-service');
  const watcher = () => {
    const w = new SolanaRedemptionsWatcher(
      httpSolanaChain(rpc.url, 2000),
      { pollMs: 50 },
      config,
      new VouchersRepository(db),
      new ChainCursorsRepository(db),
      health,
      log,
    );
    watchers.push(w);
    return w;
  };
  const listed = async () => (await vouchers.list(partnerId)).vouchers;
  const byReferrer = async (referrer: string) => (await listed()).find((v) => v.referrer === referrer)!;

  /** What the partner's payer wallet does: asks for the unsigned transaction, signs it. */
  const signedRedemption = async (voucherId: string) => {
    const { tx_base64 } = await vouchers.buildRedemption(partnerId, voucherId, PAYER.publicKey.toBase58());
    const tx = Transaction.from(Buffer.from(tx_base64, 'base64'));
    tx.sign(PAYER);
    return tx;
  };

  beforeAll(async () => {
    rpc = await new TestSolanaRpc().start();
    db = createPartnerServiceDb(await freshMigratedDatabase('partner-service', 'ps_svm_vouchers'), 4);
    await db.partner.create({ data: { id: partnerId, email: 'solvouch@example.com' } });
    for (const [i, referrer] of REFERRERS.entries()) {
      await db.referralAccrual.create({
        data: {
          partnerId,
          quoteHash: `0x${randomBytes(32).toString('hex')}`,
          referrer,
          chain: 'solana',
          chainId: '900',
          token: USDC_MINT,
          tokenSymbol: 'USDC',
          decimals: 6,
          amount: String(1_000_000 * (i + 1)),
        },
      });
    }
    const registry = {
      chain: async (name: string) =>
        name === 'solana' ? { vm: 'svm', chain_id: '900' } : name === 'base' ? { vm: 'evm', chain_id: '8453' } : undefined,
    } as unknown as RegistryClient;
    vouchers = new VouchersService(new VouchersRepository(db), config, registry, SIGNER_KEY, new SolanaRpc(rpc.url, 2000), new RandomIds());
    const issued = await vouchers.issue(partnerId);
    expect(issued.vouchers.map((v) => [v.chain, v.referrer, v.redeemed])).toEqual(
      expect.arrayContaining(REFERRERS.map((r) => ['solana', r, false])),
    );
  }, 60_000);

  afterAll(async () => {
    for (const w of watchers) await w.onApplicationShutdown();
    await db?.$disconnect();
    await rpc?.stop();
  });

  it('marks a redeemed voucher once; a failed transaction, a look-alike instruction and a foreign voucher mark nothing', async () => {
    const first = watcher();
    first.onApplicationBootstrap();
    // its first pass starts the program's position at the confirmed slot
    await until(
      'the first pass',
      async () => ((await health.readiness()).checks['solana_vouchers']?.detail?.includes('read up to slot 1000') ? true : undefined),
      POLL,
    );

    const [redeemed, failed, lookAlike] = await Promise.all(REFERRERS.map(byReferrer));
    // the program refused it (say, a wrong payer account): nothing was redeemed
    rpc.land(await signedRedemption(failed!.id), { InstructionError: [1, { Custom: 6001 }] });
    // another instruction of the same program, carrying a voucher's bytes after its own discriminator
    const other = await signedRedemption(lookAlike!.id);
    other.instructions[1]!.data.set(createHash('sha256').update('global:close_voucher').digest().subarray(0, 8), 0);
    other.sign(PAYER);
    rpc.land(other);
    // a voucher this partner-service never issued, signed by the same operator key
    const foreign: VoucherStruct = {
      id: `0x${randomBytes(32).toString('hex')}`,
      chainId: 900n,
      router: toBytes32('svm', PROGRAM),
      token: toBytes32('svm', USDC_MINT),
      referrer: toBytes32('svm', REFERRERS[0]!),
      amount: 5n,
    };
    const foreignTx = Transaction.from(
      Buffer.from(
        buildSolanaVoucherRedemption({
          programId: PROGRAM,
          payer: PAYER.publicKey.toBase58(),
          referrer: REFERRERS[0]!,
          voucher: foreign,
          signature: await signVoucher(foreign, SIGNER_KEY),
          signer: privateKeyToAddress(SIGNER_KEY),
          recentBlockhash: rpc.blockhash,
        }),
        'base64',
      ),
    );
    foreignTx.sign(PAYER);
    rpc.land(foreignTx);
    const ok = rpc.land(await signedRedemption(redeemed!.id));

    const seen = await until(
      'the voucher redeemed',
      async () => {
        const v = await byReferrer(REFERRERS[0]!);
        return v.redeemed ? v : undefined;
      },
      POLL,
    );
    expect(seen).toMatchObject({
      id: redeemed!.id,
      redeemed: true,
      redeem_tx: ok.signature,
      redeemed_at: new Date(ok.blockTime * 1000).toISOString(),
    });
    // read in chain order: the three before it were handled by the time it was
    expect(await byReferrer(REFERRERS[1]!)).toMatchObject({ redeemed: false });
    expect(await byReferrer(REFERRERS[2]!)).toMatchObject({ redeemed: false });
    expect(logs).toContainEqual(expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ voucher_id: foreign.id }) }));
    expect(await db.voucher.count({ where: { redeemed: true } })).toBe(1);
    const readiness = await health.readiness();
    expect(readiness.checks['solana_vouchers']).toEqual({
      ok: true,
      detail: expect.stringMatching(new RegExp(`^${PROGRAM}: read up to slot \\d+ \\(confirmed\\)$`)),
    });
    await first.onApplicationShutdown();

    // a restart reads from the saved position: none of those transactions is fetched again
    const fetched = rpc.calls.filter((c) => c === 'getTransaction').length;
    const cursor = await db.$queryRaw<
      { block: bigint }[]
    >`SELECT block FROM chain_cursors WHERE name = ${solanaVoucherCursorName('solana', PROGRAM, rpc.genesisHash)}`;
    expect(cursor[0]?.block).toBe(BigInt(ok.slot));
    const second = watcher();
    await second.readOnce();
    expect(rpc.calls.filter((c) => c === 'getTransaction').length).toBe(fetched);
    expect(await byReferrer(REFERRERS[0]!)).toEqual(seen);

    // the refused voucher redeemed by a later, successful transaction (a newer blockhash, so
    // another signature) is read by the restarted reader
    rpc.blockhash = Keypair.generate().publicKey.toBase58();
    const retried = rpc.land(await signedRedemption(failed!.id));
    await second.readOnce();
    expect(await byReferrer(REFERRERS[1]!)).toMatchObject({ redeemed: true, redeem_tx: retried.signature });
    expect(await byReferrer(REFERRERS[2]!)).toMatchObject({ redeemed: false });
  }, 60_000);

  it('starts a new position on a new cluster (a fresh local validator), not hiding its transactions', async () => {
    rpc.reset(5); // far below the old cluster's saved position, which would hide slot 6
    const w = watcher();
    await w.readOnce();
    const lookAlike = await byReferrer(REFERRERS[2]!);
    const tx = rpc.land(await signedRedemption(lookAlike.id));
    await w.readOnce();
    expect(await byReferrer(REFERRERS[2]!)).toMatchObject({ redeemed: true, redeem_tx: tx.signature });
  }, 30_000);
});
