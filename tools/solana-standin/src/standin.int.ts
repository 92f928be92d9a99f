import { ComputeBudgetProgram, Connection, Keypair, SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { ZERO_BYTES32, hashOrder, orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { until } from '@xchain/stack';
import { depositInstructions, parseOrderSteps, vaultTokenAccount } from '@xchain/svm-orders';
import { type SolanaStandin, startSolanaStandin } from './index';

async function rpc(
  url: string,
  method: string,
  params: unknown[] = [],
): Promise<{ result?: any; error?: { code: number; message: string; data?: any } }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(5000),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as never;
}

const signed = (ixs: TransactionInstruction[], payer: Keypair, blockhash: string, ...more: Keypair[]) => {
  const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: blockhash }).add(...ixs);
  tx.sign(payer, ...more);
  return tx.serialize().toString('base64');
};

// Jest's default 5 s per test is shorter than this suite's own poll deadlines: they, not a stopwatch,
// should decide when something did not happen.
jest.setTimeout(60_000);

describe('Solana stand-in over JSON-RPC', () => {
  let s: SolanaStandin;
  let conn: Connection;
  const user = Keypair.generate();
  const vault = Keypair.generate().publicKey;

  beforeAll(async () => {
    // Slots only when the test says so (advance), except in the clock test below.
    s = await startSolanaStandin({ slotMs: 600_000, blockhashTtlSlots: 10, finalizedDepth: 4 });
    conn = new Connection(s.url, 'confirmed');
    s.airdrop(user.publicKey, 10n ** 10n);
    s.airdrop(vault, 10n ** 9n);
    s.advance();
  });
  afterAll(() => s?.stop());

  const blockhash = async () => (await rpc(s.url, 'getLatestBlockhash', [{ commitment: 'processed' }])).result.value.blockhash as string;

  it('refuses an expired blockhash with the validator error, and drops it silently without preflight', async () => {
    const old = await blockhash();
    const fresh = signed([SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: vault, lamports: 1 })], user, old);
    expect((await rpc(s.url, 'isBlockhashValid', [old, { commitment: 'processed' }])).result.value).toBe(true);
    s.advance(11); // one past its lifetime of 10 slots
    expect((await rpc(s.url, 'isBlockhashValid', [old, { commitment: 'processed' }])).result.value).toBe(false);
    const refused = await rpc(s.url, 'sendTransaction', [fresh, { encoding: 'base64' }]);
    expect(refused.error).toMatchObject({
      code: -32002,
      message: 'Transaction simulation failed: Blockhash not found',
      data: { err: 'BlockhashNotFound', logs: [] },
    });
    const dropped = await rpc(s.url, 'sendTransaction', [fresh, { encoding: 'base64', skipPreflight: true }]);
    expect(typeof dropped.result).toBe('string');
    s.advance(2);
    expect((await rpc(s.url, 'getSignatureStatuses', [[dropped.result]])).result.value).toEqual([null]);
    // web3.js sees the same error as from a validator
    await expect(conn.sendRawTransaction(Buffer.from(fresh, 'base64'))).rejects.toThrow(/Blockhash not found/);
  });

  it('lands a transfer in the current slot: processed, then confirmed with the next slot, then finalized; web3.js reads it all', async () => {
    const sig = await conn.sendRawTransaction(
      Buffer.from(
        signed([SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: vault, lamports: 1_000_000 })], user, await blockhash()),
        'base64',
      ),
    );
    const slot = s.ledger.slot;
    expect((await conn.getSignatureStatuses([sig])).value[0]).toMatchObject({ slot, err: null, confirmationStatus: 'processed' });
    expect(await conn.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 })).toBeNull(); // not confirmed yet
    s.advance();
    const tx = await conn.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    expect(tx).toMatchObject({ slot, meta: { err: null, fee: 5000 }, version: 'legacy' });
    expect(tx!.meta!.postBalances[1]! - tx!.meta!.preBalances[1]!).toBe(1_000_000);
    expect(tx!.blockTime).toBe(
      (await conn.getBlock(slot, { commitment: 'confirmed', transactionDetails: 'none', rewards: false }))!.blockTime,
    );
    expect((await conn.getSignatureStatuses([sig])).value[0]!.confirmationStatus).toBe('confirmed');
    s.advance(4);
    expect((await conn.getSignatureStatuses([sig])).value[0]).toMatchObject({ confirmations: null, confirmationStatus: 'finalized' });
    expect(await conn.getBalance(vault, 'processed')).toBe(10 ** 9 + 1_000_000);
  });

  it('charges and records the fee a validator would, priority fee included, as getFeeForMessage predicts', async () => {
    const tx = new Transaction({ feePayer: user.publicKey, recentBlockhash: await blockhash() }).add(
      ComputeBudgetProgram.setComputeUnitPrice({ microLamports: 1_000_000 }),
      SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: vault, lamports: 1_000_000 }),
    );
    tx.sign(user);
    const predicted = (await rpc(s.url, 'getFeeForMessage', [tx.serializeMessage().toString('base64'), { commitment: 'processed' }])).result
      .value;
    const before = await conn.getBalance(user.publicKey, 'processed');
    const sig = await conn.sendRawTransaction(tx.serialize());
    s.advance();
    const fee = (await conn.getTransaction(sig, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }))!.meta!.fee;
    expect(predicted).toBe(5000 + 6000); // two built-in instructions at 3,000 units, 1 lamport a unit
    expect([fee, before - (await conn.getBalance(user.publicKey, 'processed')) - 1_000_000]).toEqual([predicted, predicted]);
  });

  it('lists signatures newest first, with before, until and limit', async () => {
    const to = Keypair.generate().publicKey;
    const sigs: string[] = [];
    for (let i = 0; i < 3; i++) {
      sigs.push(
        await conn.sendRawTransaction(
          Buffer.from(
            signed(
              [SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: to, lamports: 1_000_000 + i })],
              user,
              await blockhash(),
            ),
            'base64',
          ),
        ),
      );
      s.advance();
    }
    const list = async (cfg: object) =>
      (await rpc(s.url, 'getSignaturesForAddress', [to.toBase58(), { commitment: 'confirmed', ...cfg }])).result.map(
        (e: any) => e.signature,
      );
    expect(await list({})).toEqual([...sigs].reverse());
    expect(await list({ limit: 1 })).toEqual([sigs[2]]);
    expect(await list({ before: sigs[2] })).toEqual([sigs[1], sigs[0]]);
    expect(await list({ until: sigs[0] })).toEqual([sigs[2], sigs[1]]);
    expect((await rpc(s.url, 'getSignaturesForAddress', [to.toBase58(), { commitment: 'processed' }])).error).toMatchObject({
      code: -32602,
    });
    const [entry] = (await rpc(s.url, 'getSignaturesForAddress', [to.toBase58(), { commitment: 'confirmed', limit: 1 }])).result;
    expect(entry).toMatchObject({ err: null, memo: null, confirmationStatus: 'confirmed', blockTime: expect.any(Number) });
  });

  it('moves SPL tokens by TransferChecked into the vault account, with token balances and the memo in the history', async () => {
    const mint = s.createMint({ decimals: 6 });
    s.mintTo(user.publicKey, mint, 5_000_000n);
    s.createTokenAccount(vault, mint);
    // litesvm returns from an SPL Token program run with the x87 state dirty, so the next double `%`
    // in this process would be NaN; the stand-in puts it right after every run (operands read at run time).
    const [dividend, divisor] = [Number('2147483605.5'), Number('9')];
    expect(dividend % divisor).toBe(4.5);
    const order = sampleOrder({
      srcChainId: 792703809n,
      srcToken: toBytes32('svm', mint.toBase58()),
      amountIn: 1_500_000n,
      depositTarget: toBytes32('svm', vault.toBase58()),
      refundAddress: ZERO_BYTES32,
    });
    const sig = await conn.sendRawTransaction(
      Buffer.from(
        signed(depositInstructions({ order: orderToWire(order, []), owner: user.publicKey, mintDecimals: 6 }), user, await blockhash()),
        'base64',
      ),
    );
    s.advance();
    expect((await conn.getTokenAccountBalance(vaultTokenAccount(vault, mint))).value).toMatchObject({
      amount: '1500000',
      decimals: 6,
      uiAmountString: '1.5',
    });
    const raw = (await rpc(s.url, 'getTransaction', [sig, { commitment: 'confirmed', encoding: 'json' }])).result;
    expect(raw.meta.postTokenBalances).toContainEqual(
      expect.objectContaining({
        mint: mint.toBase58(),
        owner: vault.toBase58(),
        uiTokenAmount: expect.objectContaining({ amount: '1500000' }),
      }),
    );
    expect(parseOrderSteps(raw)).toEqual([expect.objectContaining({ kind: 'deposit', quoteHash: hashOrder(order), index: 1 })]);
    const [entry] = (
      await rpc(s.url, 'getSignaturesForAddress', [vaultTokenAccount(vault, mint).toBase58(), { commitment: 'confirmed', limit: 1 }])
    ).result;
    expect(entry).toMatchObject({ signature: sig, memo: `[84] xchain:v1:deposit:${hashOrder(order)}` });
  });

  it('lands a failing transaction sent without preflight with its error and fee, and the parser reads no step from it', async () => {
    const order = sampleOrder({
      srcChainId: 792703809n,
      srcToken: ZERO_BYTES32,
      amountIn: 10n ** 15n,
      depositTarget: toBytes32('svm', vault.toBase58()),
    });
    const tx = signed(depositInstructions({ order: orderToWire(order, []), owner: user.publicKey }), user, await blockhash());
    const preflight = await rpc(s.url, 'sendTransaction', [tx, { encoding: 'base64' }]);
    expect(preflight.error).toMatchObject({
      code: -32002,
      message: 'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1',
      data: { err: { InstructionError: [0, { Custom: 1 }] } },
    });
    const before = await conn.getBalance(user.publicKey, 'processed');
    const sig = (await rpc(s.url, 'sendTransaction', [tx, { encoding: 'base64', skipPreflight: true }])).result;
    s.advance();
    const landed = (await rpc(s.url, 'getTransaction', [sig, { commitment: 'confirmed' }])).result;
    expect(landed.meta).toMatchObject({
      err: { InstructionError: [0, { Custom: 1 }] },
      status: { Err: { InstructionError: [0, { Custom: 1 }] } },
      fee: 5000,
    });
    expect(await conn.getBalance(user.publicKey, 'processed')).toBe(before - 5000);
    expect(parseOrderSteps(landed)).toEqual([]);
    // the same transaction again: already processed
    expect((await rpc(s.url, 'sendTransaction', [tx, { encoding: 'base64' }])).error).toMatchObject({
      code: -32002,
      data: { err: 'AlreadyProcessed' },
    });
  });

  it('checks signatures: a bad one is refused before simulation; simulation checks them only when asked', async () => {
    const tx = new Transaction({ feePayer: user.publicKey, recentBlockhash: await blockhash() }).add(
      SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: vault, lamports: 7 }),
    );
    const unsigned = tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
    expect((await rpc(s.url, 'sendTransaction', [unsigned, { encoding: 'base64' }])).error).toEqual({
      code: -32003,
      message: 'Transaction signature verification failure',
    });
    expect((await rpc(s.url, 'simulateTransaction', [unsigned, { encoding: 'base64', sigVerify: true }])).error).toMatchObject({
      code: -32003,
    });
    const sim = (
      await rpc(s.url, 'simulateTransaction', [
        unsigned,
        { encoding: 'base64', accounts: { addresses: [vault.toBase58()], encoding: 'base64' } },
      ])
    ).result.value;
    expect(sim).toMatchObject({
      err: null,
      replacementBlockhash: null,
      accounts: [expect.objectContaining({ owner: SystemProgram.programId.toBase58() })],
    });
    expect(sim.accounts[0].lamports).toBe((await conn.getBalance(vault, 'processed')) + 7);
    s.advance(11);
    const replaced = (await rpc(s.url, 'simulateTransaction', [unsigned, { encoding: 'base64', replaceRecentBlockhash: true }])).result
      .value;
    expect(replaced).toMatchObject({ err: null, replacementBlockhash: { blockhash: await blockhash() } });
    expect((await rpc(s.url, 'simulateTransaction', [unsigned, { encoding: 'base64' }])).result.value.err).toBe('BlockhashNotFound');
  });

  it('answers unknown methods and malformed input with JSON-RPC errors, never a crash', async () => {
    expect((await rpc(s.url, 'getFoo')).error).toEqual({ code: -32601, message: 'Method not found' });
    expect((await rpc(s.url, 'getBalance', ['not-a-key'])).error).toMatchObject({ code: -32602 });
    expect((await rpc(s.url, 'sendTransaction', ['AAAA', { encoding: 'base64' }])).error).toMatchObject({ code: -32602 });
    const res = await fetch(s.url, { method: 'POST', body: '{', signal: AbortSignal.timeout(5000) });
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
  });

  it('advances slots on its clock and expires blockhashes by itself', async () => {
    const fast = await startSolanaStandin({ slotMs: 20, blockhashTtlSlots: 3, finalizedDepth: 1 });
    try {
      const c = new Connection(fast.url, 'processed');
      // The slot before the blockhash: read after it, a slot that ticked in between made the
      // expiry slot (the blockhash's + 4) equal start + 3 (seen once in a full CI run).
      const start = await c.getSlot('processed');
      const { blockhash: first } = await c.getLatestBlockhash('processed');
      await until('the blockhash to expire', async () => !(await c.isBlockhashValid(first, { commitment: 'processed' })).value, {
        timeoutMs: 5000,
        everyMs: 20,
        failOnError: true,
      });
      expect(await c.getSlot('processed')).toBeGreaterThan(start + 3);
    } finally {
      await fast.stop();
    }
  });
});
