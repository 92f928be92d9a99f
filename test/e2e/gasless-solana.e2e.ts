import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair, PublicKey, SystemProgram, Transaction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { type XchainClient, signGaslessQuote } from '@xchain/client';
import { base58Encode } from '@xchain/order-codec';
import { type SolanaStandin, startSolanaStandin } from '@xchain/solana-standin';
import { ROOT, SERVICES, startBuiltService, until, untilHolds } from '@xchain/stack';
import { memoText, vaultTokenAccount } from '@xchain/svm-orders';
import { type Hex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { startE2eStack, type E2eStack } from '../support/e2e-stack';
import { apiErrorView, crossChainOf, gatewayClient } from '../support/http';
import { EVM_USER, T } from '../support/registry-fixture';

jest.setTimeout(120_000);

const USDC = T.solana.USDC;
const USDC_UNITS = (n: number) => BigInt(n) * 10n ** 6n;
const TTL_SLOTS = 300;
const RELAYER = SERVICES.find((s) => s.name === 'gasless-relayer')!;

type Quote = ReturnType<typeof crossChainOf>;
/** The unsigned transaction a Solana gasless quote carries for the user to sign. */
const txOf = (q: Quote): string => {
  if (!q.svm) throw new Error(`a Solana gasless quote carries svm.tx_base64, got ${JSON.stringify(q)}`);
  return q.svm.tx_base64;
};

/**
 * Gasless orders from Solana end to end (D6), through the gateway, against the litesvm stand-in:
 * quote, sign the quote's transaction with the user's key only, submit, and watch the order; every
 * refusal happens before the fee payer signs or sends anything.
 */
describe('gasless Solana orders through the gateway', () => {
  let standin: SolanaStandin;
  let e2e: E2eStack;
  let vault: PublicKey;
  const feePayer = Keypair.generate();
  // Slots advance on the suite's own clock, so a test can hold them (a transaction stays `processed`).
  let ticking = true;
  let ticker: NodeJS.Timeout | undefined;
  const registryFile = join(ROOT, '.test-data', `registry-solana-${process.pid}.json`);

  let api: XchainClient;
  // The stand-in's JSON-RPC, not the gateway's API: plain fetch.
  const rpc = async (method: string, params: unknown[]): Promise<any> => {
    const res = await fetch(standin.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  };
  const lamports = async (who: PublicKey): Promise<bigint> =>
    BigInt((await rpc('getBalance', [who.toBase58(), { commitment: 'processed' }])).value);
  const tokens = async (account: PublicKey): Promise<bigint> => {
    const info = await rpc('getAccountInfo', [account.toBase58(), { encoding: 'base64', commitment: 'processed' }]);
    return info.value ? Buffer.from(info.value.data[0], 'base64').readBigUInt64LE(64) : 0n;
  };

  /** A wallet with `usdc` base units of USDC and not one lamport (it never needs gas). */
  const newUser = (usdc: bigint) => {
    const user = Keypair.generate();
    standin.mintTo(user.publicKey, USDC, usdc);
    return user;
  };
  // After a test jumped past the blockhash lifetime, the quote-engine may still hand out its
  // (briefly cached) older blockhash: ask again until the quote's blockhash is a live one.
  const quote = (user: Keypair, amount: bigint): Promise<Quote> =>
    until(
      'a quote with a live blockhash',
      async () => {
        const q = crossChainOf(
          await api.getQuote({
            src_chain: 'solana',
            dst_chain: 'arbitrum',
            src_token: USDC,
            dst_token: T.arbitrum.USDC,
            trade_type: 'TRADE_TYPE_EXACT_INPUT',
            amount: amount.toString(),
            gas_drop: '',
            recipient: EVM_USER,
            refund_address: user.publicKey.toBase58(),
            gasless: true,
          }),
        );
        const blockhash = Transaction.from(Buffer.from(txOf(q), 'base64')).recentBlockhash;
        return (await rpc('isBlockhashValid', [blockhash, { commitment: 'confirmed' }])).value ? q : undefined;
      },
      { timeoutMs: 5000, everyMs: 50, failOnError: true },
    );
  /** What a wallet does: sign the transaction exactly as served, its own slot only. */
  const sign = (base64: string, ...signers: Keypair[]) => {
    const tx = Transaction.from(Buffer.from(base64, 'base64'));
    if (signers.length) tx.partialSign(...signers);
    return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
  };
  /** The quote's transaction rebuilt with other instructions (or another blockhash), then signed by `signers`. */
  const rebuilt = (q: Quote, edit: (tx: Transaction) => Transaction, ...signers: Keypair[]) => {
    const tx = edit(Transaction.from(Buffer.from(txOf(q), 'base64')));
    if (signers.length) tx.partialSign(...signers);
    return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
  };
  /** SubmitGaslessOrder; the whole answer (status, the body as sent). A refusal throws its XchainApiError. */
  const submit = (quoteHash: string, txBase64: string) =>
    api.call('SubmitGaslessOrder', { quote_hash: quoteHash, svm: { tx_base64: txBase64 } });
  /** A submission that must be refused: what the refusal says. */
  const refused = (quoteHash: string, txBase64: string) =>
    api.submitGaslessOrder({ quote_hash: quoteHash, svm: { tx_base64: txBase64 } }).then((ok) => {
      throw new Error(`expected a refusal, the order was accepted: ${JSON.stringify(ok)}`);
    }, apiErrorView);
  const order = (quoteHash: string) => api.getOrder({ quote_hash: quoteHash });
  const waitGasless = async (quoteHash: string, status: string, timeoutMs = 30_000) => {
    const { gasless } = await untilHolds(
      `order ${quoteHash} ${status}`,
      () => order(quoteHash),
      (v) => v.gasless?.status === status,
      { timeoutMs, everyMs: 100 },
    );
    // every status waited for here (submitted, confirmed) names the transaction sent
    const tx_hash = gasless?.tx_hash;
    if (tx_hash === undefined) throw new Error(`order ${quoteHash} is ${status} without a tx_hash: ${JSON.stringify(gasless)}`);
    return { ...gasless!, tx_hash };
  };
  /** The id the relayer's co-signature gives a signed transaction (the fee payer's signature is deterministic). */
  const idOf = (base64: string) => {
    const tx = Transaction.from(Buffer.from(base64, 'base64'));
    tx.partialSign(feePayer);
    return base58Encode(tx.signatures[0]!.signature!);
  };
  /** A blockhash newer than any quote's so far (a slot opened first), so a transaction over it is a different transaction. */
  const freshBlockhash = async () => {
    standin.advance();
    return (await rpc('getLatestBlockhash', [{ commitment: 'confirmed' }])).value.blockhash as string;
  };

  beforeAll(async () => {
    standin = await startSolanaStandin({ slotMs: 3_600_000, blockhashTtlSlots: TTL_SLOTS });
    ticker = setInterval(() => ticking && standin.advance(), 100);
    standin.createMint({ address: USDC, decimals: 6 });
    const registry = JSON.parse(readFileSync(join(ROOT, 'config/registry.json'), 'utf8')) as {
      chains: { chain: string; deposit_target: string; fee_payer?: string }[];
    };
    const solana = registry.chains.find((c) => c.chain === 'solana')!;
    solana.fee_payer = feePayer.publicKey.toBase58(); // the suite's own fee payer: the registry's placeholder has no known key
    vault = new PublicKey(solana.deposit_target);
    standin.createTokenAccount(vault, USDC);
    standin.airdrop(feePayer.publicKey, 10n ** 9n);
    mkdirSync(join(ROOT, '.test-data'), { recursive: true });
    writeFileSync(registryFile, JSON.stringify(registry));
    e2e = await startE2eStack(
      {
        PRICE_POLL_MS: '600000',
        PRICE_MAX_AGE_SECS: '7200',
        SOLANA_RPC_URL: standin.url,
        SOLANA_FEE_PAYER_KEY: JSON.stringify(Array.from(feePayer.secretKey)),
        SOLANA_POLL_MS: '100',
        SOLANA_BLOCKHASH_CACHE_MS: '50',
      },
      { registryFile },
    );
    api = gatewayClient(e2e.gatewayUrl);
  }, 180_000);

  afterAll(async () => {
    clearInterval(ticker);
    await e2e?.stop();
    await standin?.stop();
    rmSync(registryFile, { force: true });
  });

  it("names no relayer wallet, fee payer or balance in any service's /readyz or /livez; /metrics keeps them for operators", async () => {
    // The services' own health ports, not the public API (the client has no operation for them): plain fetch.
    // This suite runs no EVM chain: the wallets' side is chain-health.spec's (and prometheus.e2e's metrics).
    const keys = (e2e.stack.envFor('gasless-relayer')['RELAYER_PRIVATE_KEYS'] ?? '').split(',').filter(Boolean);
    const wallets = keys.map((k) => privateKeyToAddress(k as Hex).toLowerCase());
    const accounts = [...wallets, feePayer.publicKey.toBase58()];
    for (const { name } of SERVICES) {
      for (const path of ['/readyz', '/livez']) {
        const res = await fetch(`http://127.0.0.1:${e2e.ports[name]}${path}`);
        const body = await res.text();
        const told = accounts.filter((a) => body.toLowerCase().includes(a.toLowerCase()));
        expect({ at: `${name}${path}`, status: res.status, told, balance: /lamports|holds|\d\.\d+/i.exec(body)?.[0] }).toEqual({
          at: `${name}${path}`,
          status: 200,
          told: [],
          balance: undefined,
        });
      }
    }
    const ready = (await (await fetch(`http://127.0.0.1:${e2e.ports['gasless-relayer']}/readyz`)).json()) as {
      checks: Record<string, { ok: boolean }>;
    };
    expect(ready.checks).toMatchObject({ solana: { ok: true } });

    const metrics = await (await fetch(`http://127.0.0.1:${e2e.ports['gasless-relayer']}/metrics`)).text();
    for (const wallet of wallets)
      expect(metrics).toMatch(new RegExp(`^relayer_wallet_balance_wei\\{chain="[a-z]+",wallet="${wallet}"\\} [1-9]`, 'm'));
    expect(metrics).toMatch(
      new RegExp(`^relayer_solana_fee_payer_balance_lamports\\{fee_payer="${feePayer.publicKey.toBase58()}"\\} [1-9]`, 'm'),
    );
    expect(metrics).toContain(`relayer_solana_fee_payer_floor_lamports{fee_payer="${feePayer.publicKey.toBase58()}"}`);
  });

  it('relays a deposit the user signed alone: confirmed, the vault got amount_in, the fee payer paid only the fee', async () => {
    const user = newUser(USDC_UNITS(100));
    const q = await quote(user, USDC_UNITS(25));
    expect(q.fee_payer).toBe(feePayer.publicKey.toBase58());
    const unsigned = Transaction.from(Buffer.from(txOf(q), 'base64'));
    expect(unsigned.feePayer?.toBase58()).toBe(feePayer.publicKey.toBase58());
    expect(Buffer.from(unsigned.instructions[1]!.data).toString()).toBe(memoText('deposit', q.quote_hash));

    const vaultAta = vaultTokenAccount(vault, USDC);
    const [vault0, payer0] = await Promise.all([tokens(vaultAta), lamports(feePayer.publicKey)]);
    const r = await submit(q.quote_hash, sign(txOf(q), user));
    expect(r).toMatchObject({ status: 200, body: { quote_hash: q.quote_hash, status: 'queued' } });
    const done = await waitGasless(q.quote_hash, 'confirmed');
    expect(done.tx_hashes).toEqual([done.tx_hash]);

    const landed = await rpc('getTransaction', [done.tx_hash, { encoding: 'json', commitment: 'confirmed' }]);
    expect(landed.meta.err).toBeNull();
    expect(landed.transaction.message.accountKeys[0]).toBe(feePayer.publicKey.toBase58());
    expect(await tokens(vaultAta)).toBe(vault0 + USDC_UNITS(25));
    expect(await tokens(vaultTokenAccount(user.publicKey, USDC))).toBe(USDC_UNITS(75));
    const fee = BigInt(landed.meta.fee);
    expect(fee).toBeGreaterThan(0n);
    expect(await lamports(feePayer.publicKey)).toBe(payer0 - fee);
    expect(await lamports(user.publicKey)).toBe(0n);

    // Submitted again, the same body answers the one order's state and sends nothing.
    const again = await submit(q.quote_hash, sign(txOf(q), user));
    expect({ status: again.status, body: again.body }).toEqual({
      status: 200,
      body: { quote_hash: q.quote_hash, status: 'confirmed', tx_hash: done.tx_hash },
    });
    // So does another valid transaction for the same quote (a fresh blockhash): never sent, nothing paid.
    const blockhash = await freshBlockhash();
    const resigned = rebuilt(
      q,
      (tx) => new Transaction({ feePayer: tx.feePayer!, recentBlockhash: blockhash }).add(...tx.instructions),
      user,
    );
    const third = await submit(q.quote_hash, resigned);
    expect(third.body).toEqual({ quote_hash: q.quote_hash, status: 'confirmed', tx_hash: done.tx_hash });
    expect(standin.ledger.record(idOf(resigned))).toBeUndefined();
    expect(await lamports(feePayer.publicKey)).toBe(payer0 - fee);
    expect(await tokens(vaultAta)).toBe(vault0 + USDC_UNITS(25));
  });

  it("relays the body the client's signGaslessQuote builds with a Keypair (signed through WebCrypto, not @solana/web3.js)", async () => {
    const user = newUser(USDC_UNITS(10));
    const q = await quote(user, USDC_UNITS(10));
    const body = await signGaslessQuote(q, user);
    expect(await api.submitGaslessOrder(body)).toMatchObject({ quote_hash: q.quote_hash, status: 'queued' });
    await waitGasless(q.quote_hash, 'confirmed');
    expect(await tokens(vaultTokenAccount(user.publicKey, USDC))).toBe(0n);
  });

  it('sends one transaction when two different valid transactions of one quote arrive at once', async () => {
    const user = newUser(USDC_UNITS(10));
    const q = await quote(user, USDC_UNITS(10));
    const blockhash = await freshBlockhash();
    const a = sign(txOf(q), user);
    const b = rebuilt(q, (tx) => new Transaction({ feePayer: tx.feePayer!, recentBlockhash: blockhash }).add(...tx.instructions), user);
    const payer0 = await lamports(feePayer.publicKey);
    const answers = await Promise.all([submit(q.quote_hash, a), submit(q.quote_hash, b)]);
    expect(answers.map((x) => x.status)).toEqual([200, 200]);
    const done = await waitGasless(q.quote_hash, 'confirmed');
    expect(done.tx_hashes).toHaveLength(1);
    expect([a, b].map((t) => standin.ledger.record(idOf(t)) !== undefined).sort()).toEqual([false, true]);
    expect([idOf(a), idOf(b)]).toContain(done.tx_hash);
    // Exactly one of the two landed: the vault holds the deposit once, the fee payer paid one fee.
    const landed = await rpc('getTransaction', [done.tx_hash, { encoding: 'json', commitment: 'confirmed' }]);
    expect(await lamports(feePayer.publicKey)).toBe(payer0 - BigInt(landed.meta.fee));
    expect(await tokens(vaultTokenAccount(user.publicKey, USDC))).toBe(0n);
    const memos = (await rpc('getSignaturesForAddress', [
      vaultTokenAccount(vault, USDC).toBase58(),
      { limit: 1000, commitment: 'confirmed' },
    ])) as { memo: string | null }[];
    expect(memos.filter((m) => m.memo?.includes(q.quote_hash)).length).toBe(1);
  });

  it('refuses, before the fee payer signs or sends anything: the fee payer abused, a swapped instruction, a missing or forged signature, another fee payer, a versioned transaction, a short balance', async () => {
    const user = newUser(USDC_UNITS(10));
    const thief = Keypair.generate();
    standin.createTokenAccount(thief.publicKey, USDC);
    const q = await quote(user, USDC_UNITS(5));
    const payer0 = await lamports(feePayer.publicKey);
    const hash = q.quote_hash;

    // The fee payer's lamports moved by an added instruction.
    const drain = SystemProgram.transfer({ fromPubkey: feePayer.publicKey, toPubkey: thief.publicKey, lamports: 100_000_000 });
    expect(
      await refused(
        hash,
        rebuilt(q, (tx) => tx.add(drain), user),
      ),
    ).toMatchObject({ http: 400, code: 3, reason: 'FEE_PAYER_IN_INSTRUCTION', fields: ['svm.tx_base64'] });
    // The deposit's destination swapped for another token account.
    const swapped = rebuilt(
      q,
      (tx) => {
        tx.instructions[0]!.keys[2]!.pubkey = vaultTokenAccount(thief.publicKey, USDC);
        return new Transaction({ feePayer: tx.feePayer!, recentBlockhash: tx.recentBlockhash! }).add(...tx.instructions);
      },
      user,
    );
    expect(await refused(hash, swapped)).toMatchObject({ http: 400, reason: 'INSTRUCTIONS_MISMATCH' });
    // Not signed by the user, or signed by someone else in the user's slot.
    expect(await refused(hash, txOf(q))).toMatchObject({
      http: 400,
      reason: 'MISSING_SIGNATURE',
      metadata: { signer: user.publicKey.toBase58() },
    });
    const forged = Transaction.from(Buffer.from(sign(txOf(q), user), 'base64'));
    const bad = Buffer.from(forged.signatures[1]!.signature!);
    bad[0]! ^= 0xff; // the user's signature, one byte off
    forged.signatures[1]!.signature = bad;
    expect(
      await refused(hash, forged.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64')),
    ).toMatchObject({ http: 400, reason: 'INVALID_SIGNATURE' });
    // Paid by the user instead of the quote's fee payer.
    expect(
      await refused(
        hash,
        rebuilt(
          q,
          (tx) => new Transaction({ feePayer: user.publicKey, recentBlockhash: tx.recentBlockhash! }).add(...tx.instructions),
          user,
        ),
      ),
    ).toMatchObject({
      http: 400,
      reason: 'WRONG_FEE_PAYER',
    });
    // The same instructions as a v0 transaction.
    const unsigned = Transaction.from(Buffer.from(txOf(q), 'base64'));
    const v0 = new VersionedTransaction(
      new TransactionMessage({
        payerKey: feePayer.publicKey,
        recentBlockhash: unsigned.recentBlockhash!,
        instructions: unsigned.instructions,
      }).compileToV0Message(),
    );
    v0.sign([user]);
    expect(await refused(hash, Buffer.from(v0.serialize()).toString('base64'))).toMatchObject({
      http: 400,
      reason: 'VERSIONED_TRANSACTION',
    });
    // A well-formed deposit the user cannot pay: the simulation says so, with the token program's error.
    const poor = Keypair.generate();
    standin.createTokenAccount(poor.publicKey, USDC);
    const pq = await quote(poor, USDC_UNITS(5));
    const short = await refused(pq.quote_hash, sign(txOf(pq), poor));
    expect(short).toMatchObject({ http: 400, code: 9, reason: 'SIMULATION_REVERTED' });
    expect(short.metadata?.['revert_reason']).toMatch(/InstructionError/);

    expect(await lamports(feePayer.publicKey)).toBe(payer0);
    expect((await order(hash)).gasless).toBeUndefined();
    // The honest transaction still goes through afterwards.
    expect((await submit(hash, sign(txOf(q), user))).data.status).toBe('queued');
    await waitGasless(hash, 'confirmed');
  });

  it('refuses a transaction whose blockhash expired, with its own reason (sign again)', async () => {
    const user = newUser(USDC_UNITS(10));
    const q = await quote(user, USDC_UNITS(3));
    const signed = sign(txOf(q), user);
    const blockhash = Transaction.from(Buffer.from(signed, 'base64')).recentBlockhash!;
    standin.advance(TTL_SLOTS + 1);
    expect((await rpc('isBlockhashValid', [blockhash, { commitment: 'confirmed' }])).value).toBe(false);
    const payer0 = await lamports(feePayer.publicKey);
    expect(await refused(q.quote_hash, signed)).toEqual({
      http: 400,
      code: 9,
      reason: 'BLOCKHASH_EXPIRED',
      metadata: { blockhash },
      fields: [],
    });
    expect(await lamports(feePayer.publicKey)).toBe(payer0);
    expect((await order(q.quote_hash)).gasless).toBeUndefined();
    // Signed again over a recent blockhash (what a fresh quote carries), the same quote is relayed.
    const blockhash2 = await freshBlockhash();
    const resigned = rebuilt(
      q,
      (tx) => new Transaction({ feePayer: tx.feePayer!, recentBlockhash: blockhash2 }).add(...tx.instructions),
      user,
    );
    expect((await submit(q.quote_hash, resigned)).data.status).toBe('queued');
    await waitGasless(q.quote_hash, 'confirmed');
  });

  it('confirms an order sent just before a kill -9 of the relayer, after the restart, by polling its signature: nothing sent twice', async () => {
    const user = newUser(USDC_UNITS(10));
    const q = await quote(user, USDC_UNITS(7));
    const vaultAta = vaultTokenAccount(vault, USDC);
    const [vault0, payer0] = await Promise.all([tokens(vaultAta), lamports(feePayer.publicKey)]);
    const relayer = () => e2e.stack.services.get('gasless-relayer')!;
    ticking = false; // the transaction lands `processed` and stays so: the relayer cannot confirm it yet
    let sent: { tx_hash: string };
    try {
      expect((await submit(q.quote_hash, sign(txOf(q), user))).data.status).toBe('queued');
      sent = await waitGasless(q.quote_hash, 'submitted');
      // Submitted is recorded before the send: wait for the transaction itself to land (`processed`).
      await until(`${sent.tx_hash} at the stand-in`, () => standin.ledger.record(sent.tx_hash), { timeoutMs: 10_000, everyMs: 20 });
      expect((await rpc('getSignatureStatuses', [[sent.tx_hash]])).value[0].confirmationStatus).toBe('processed');
      relayer().child.kill('SIGKILL');
      await new Promise((r) => relayer().child.once('exit', r));
    } finally {
      ticking = true;
    }
    const proc = await startBuiltService({
      spec: RELAYER,
      port: e2e.ports['gasless-relayer'],
      env: e2e.stack.envFor('gasless-relayer'),
      logFile: join(e2e.logDir, 'gasless-relayer.log'),
    });
    e2e.stack.services.set('gasless-relayer', proc);
    const done = await waitGasless(q.quote_hash, 'confirmed');
    expect(done.tx_hashes).toEqual([sent!.tx_hash]);
    const landed = await rpc('getTransaction', [done.tx_hash, { encoding: 'json', commitment: 'confirmed' }]);
    expect(await lamports(feePayer.publicKey)).toBe(payer0 - BigInt(landed.meta.fee));
    expect(await tokens(vaultAta)).toBe(vault0 + USDC_UNITS(7));
  });
});
