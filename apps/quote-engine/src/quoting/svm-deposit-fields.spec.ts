import { Keypair, Transaction } from '@solana/web3.js';
import { hashOrder, orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { SVM_PROGRAMS, depositInstructions, memoText, vaultTokenAccount } from '@xchain/svm-orders';
import type { ChainInfo, TokenInfo } from '../registry/registry-cache';
import { FakeClock } from '@xchain/service-kit';
import { SolanaBlockhashes } from './svm-blockhash';
import { svmDepositFields, svmDepositFieldsFrom } from './svm-deposit-fields';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const vault = Keypair.generate().publicKey.toBase58();
const feePayer = Keypair.generate().publicKey.toBase58();
const user = Keypair.generate().publicKey.toBase58();
const blockhash = Keypair.generate().publicKey.toBase58();

const solana: ChainInfo = {
  name: 'solana',
  chainId: 792703809n,
  vm: 'svm',
  nativeSymbol: 'SOL',
  nativeDecimals: 9,
  enabled: true,
  gasless: true,
  maxGasDrop: 0n,
  depositTarget: vault,
  feePayer,
};
const usdc: TokenInfo = { chain: 'solana', address: USDC, symbol: 'USDC', decimals: 6, tier: 'stable', permit: false, isNative: false };
const order = sampleOrder({
  srcChainId: 792703809n,
  srcToken: toBytes32('svm', USDC),
  refundAddress: toBytes32('svm', user),
  depositTarget: toBytes32('svm', vault),
  gasless: true,
  amountIn: 25_000_000n,
});
const wire = orderToWire(order, []);

describe('svmDepositFields', () => {
  it("is an unsigned legacy transaction: the chain's fee payer, the blockhash, exactly the deposit instructions, signed by nobody yet", () => {
    const { svm } = svmDepositFields({ order: wire, gasless: true, chain: solana, token: usdc, blockhash });
    const tx = Transaction.from(Buffer.from(svm!.tx_base64, 'base64'));
    expect(tx.feePayer?.toBase58()).toBe(feePayer);
    expect(tx.recentBlockhash).toBe(blockhash);
    expect(tx.signatures.map((s) => [s.publicKey.toBase58(), s.signature])).toEqual([
      [feePayer, null],
      [user, null],
    ]);
    const expected = depositInstructions({ order: wire, owner: user, vault, mintDecimals: 6 });
    expect(
      tx.instructions.map((i) => [i.programId.toBase58(), i.keys.map((k) => k.pubkey.toBase58()), Buffer.from(i.data).toString('hex')]),
    ).toEqual(expected.map((i) => [i.programId.toBase58(), i.keys.map((k) => k.pubkey.toBase58()), Buffer.from(i.data).toString('hex')]));
    // What a user reads in a wallet: 25 USDC (6 decimals) into the vault's token account, then the memo.
    expect(tx.instructions[0]!.programId.equals(SVM_PROGRAMS.token)).toBe(true);
    expect(tx.instructions[0]!.keys[2]!.pubkey.equals(vaultTokenAccount(vault, USDC))).toBe(true);
    expect(Buffer.from(tx.instructions[0]!.data).readBigUInt64LE(1)).toBe(25_000_000n);
    expect(tx.instructions[0]!.data[9]).toBe(6);
    expect(Buffer.from(tx.instructions[1]!.data).toString()).toBe(memoText('deposit', hashOrder(order)));
  });

  it('is absent without a blockhash, for an EVM source, a quote that is not gasless, or a chain without a fee payer', () => {
    expect(svmDepositFields({ order: wire, gasless: true, chain: solana, token: usdc, blockhash: undefined })).toEqual({});
    expect(svmDepositFields({ order: wire, gasless: false, chain: solana, token: usdc, blockhash })).toEqual({});
    expect(svmDepositFields({ order: wire, gasless: true, chain: { ...solana, vm: 'evm' }, token: usdc, blockhash })).toEqual({});
    const { feePayer: _none, ...noFeePayer } = solana;
    expect(svmDepositFields({ order: wire, gasless: true, chain: noFeePayer, token: usdc, blockhash })).toEqual({});
  });

  it('asks for a blockhash only when the quote needs one', async () => {
    const recent = jest.fn(async () => blockhash);
    const log = { warn: jest.fn() };
    expect(await svmDepositFieldsFrom({ recent }, { order: wire, gasless: false, chain: solana, token: usdc }, log)).toEqual({});
    expect(recent).not.toHaveBeenCalled();
    expect((await svmDepositFieldsFrom({ recent }, { order: wire, gasless: true, chain: solana, token: usdc }, log)).svm).toBeDefined();
    expect(recent).toHaveBeenCalledTimes(1);
  });

  it('costs the quote the field, never the quote, when the transaction cannot be built (and says so in the log)', async () => {
    const log = { warn: jest.fn() };
    const other = { ...solana, depositTarget: Keypair.generate().publicKey.toBase58() }; // not the order's deposit_target
    expect(
      await svmDepositFieldsFrom({ recent: async () => blockhash }, { order: wire, gasless: true, chain: other, token: usdc }, log),
    ).toEqual({});
    expect(log.warn).toHaveBeenCalledTimes(1);
  });
});

describe('SolanaBlockhashes', () => {
  const answer = (hash: string) =>
    new Response(
      JSON.stringify({ jsonrpc: '2.0', id: 1, result: { context: { slot: 1 }, value: { blockhash: hash, lastValidBlockHeight: 150 } } }),
    );
  let clock: FakeClock;
  let fetchMock: jest.SpyInstance;
  const warn = jest.fn();
  const source = (url: string | null = 'http://127.0.0.1:1/') =>
    new SolanaBlockhashes({ ...(url ? { url } : {}), timeoutMs: 50, cacheMs: 2000, staleMs: 10_000 }, { warn }, clock);

  beforeEach(() => {
    clock = new FakeClock(1_000_000);
    warn.mockReset();
    fetchMock = jest.spyOn(globalThis, 'fetch');
  });
  afterEach(() => fetchMock.mockRestore());

  it('asks once for many concurrent quotes and serves the answer from memory while it is young', async () => {
    fetchMock.mockImplementation(async () => answer(blockhash));
    const s = source();
    expect(await Promise.all([s.recent(), s.recent(), s.recent()])).toEqual([blockhash, blockhash, blockhash]);
    clock.advance(1999);
    expect(await s.recent()).toBe(blockhash);
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(JSON.parse(fetchMock.mock.calls[0][1].body)).toMatchObject({ method: 'getLatestBlockhash' });
  });

  it('serves a slightly stale one at once while it refreshes, and never one older than staleMs', async () => {
    const next = Keypair.generate().publicKey.toBase58();
    fetchMock.mockImplementationOnce(async () => answer(blockhash)).mockImplementation(async () => answer(next));
    const s = source();
    await s.recent();
    clock.advance(5000);
    expect(await s.recent()).toBe(blockhash); // stale, refreshed behind the answer
    await new Promise((r) => setImmediate(r));
    expect(await s.recent()).toBe(next);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    clock.advance(10_000); // too old to serve: asked for, and the failure shows
    fetchMock.mockImplementation(async () => new Response('not json'));
    expect(await s.recent()).toBeUndefined();
  });

  it('answers undefined, once per cacheMs at most, when the RPC fails or does not answer in time', async () => {
    fetchMock.mockImplementation(
      (_url, init: RequestInit) => new Promise((_, reject) => init.signal!.addEventListener('abort', () => reject(init.signal!.reason))),
    );
    const s = source();
    expect(await s.recent()).toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
    clock.advance(1000);
    expect(await s.recent()).toBeUndefined(); // no second timeout within cacheMs
    expect(fetchMock).toHaveBeenCalledTimes(1);
    clock.advance(1000);
    fetchMock.mockImplementation(async () => new Response('{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"down"}}'));
    expect(await s.recent()).toBeUndefined();
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });

  it('never asks without an RPC', async () => {
    expect(await source(null).recent()).toBeUndefined();
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
