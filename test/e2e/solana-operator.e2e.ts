import type { NatsConnection } from '@nats-io/transport-node';
import { Keypair, type PublicKey } from '@solana/web3.js';
import { OperatorBalanceRpc, type OperatorTxView, SendOperatorTxRpc, type SendOperatorTxRequest } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import { ZERO_BYTES32, hashOrder, orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { type SolanaStandin, startSolanaStandin } from '@xchain/solana-standin';
import { untilHolds } from '@xchain/stack';
import { type E2eStack, startE2eStack } from '../support/e2e-stack';

jest.setTimeout(120_000);

const SOLANA_CHAIN_ID = 792703809n;
const SOL_TOKEN = '11111111111111111111111111111111';
const SOL = 10n ** 9n;

/**
 * Solana operator transactions (D15) through the running relayer, asked over the bus as the
 * quote-engine asks: a fill and a refund built, signed and sent by the relayer from its
 * SOLANA_FILLER_KEY and SOLANA_VAULT_KEY, and the filler's balance read.
 */
describe('Solana operator transactions through the relayer', () => {
  let standin: SolanaStandin;
  let e2e: E2eStack;
  let nc: NatsConnection;
  let rpc: RpcClient;
  const filler = Keypair.generate();
  const vault = Keypair.generate();

  const lamports = async (who: PublicKey): Promise<bigint> => {
    const res = await fetch(standin.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getBalance', params: [who.toBase58(), { commitment: 'confirmed' }] }),
    });
    return BigInt(((await res.json()) as { result: { value: number } }).result.value);
  };
  /** Asks until the transaction is confirmed or failed (the quote-engine's settlement does the same), with a deadline. */
  const settle = (req: SendOperatorTxRequest): Promise<OperatorTxView> =>
    untilHolds(
      'the operator transaction confirmed or failed',
      () => rpc.call(SendOperatorTxRpc, req),
      (view) => view.status === 'confirmed' || view.status === 'failed',
      { everyMs: 100 },
    );
  const salt = () => `0x${Buffer.from(Keypair.generate().publicKey.toBytes()).toString('hex')}` as const;

  beforeAll(async () => {
    standin = await startSolanaStandin({ slotMs: 100 });
    for (const k of [filler, vault]) standin.airdrop(k.publicKey, 10n * SOL);
    e2e = await startE2eStack({
      SOLANA_RPC_URL: standin.url,
      SOLANA_FILLER_KEY: JSON.stringify(Array.from(filler.secretKey)),
      SOLANA_VAULT_KEY: JSON.stringify(Array.from(vault.secretKey)),
      SOLANA_POLL_MS: '100',
    });
    nc = await e2e.connectAs('quote-engine');
    rpc = new RpcClient(nc, 20_000);
  }, 180_000);

  afterAll(async () => {
    await nc?.close();
    await e2e?.stop();
    await standin?.stop();
  });

  it('fills in SOL from the filler: the recipient gets amount_out to the lamport, once', async () => {
    const recipient = Keypair.generate().publicKey;
    const order = sampleOrder({
      salt: salt(),
      dstChainId: SOLANA_CHAIN_ID,
      dstToken: ZERO_BYTES32,
      recipient: toBytes32('svm', recipient.toBase58()),
      amountOut: 1_234_567_891n,
      minAmountOut: 1_200_000_000n,
    });
    const quoteHash = hashOrder(order);
    const view = await settle({ kind: 'fill', quote_hash: quoteHash, chain: 'solana', call: { vm: 'svm', order: orderToWire(order, []) } });
    expect(view).toMatchObject({
      kind: 'fill',
      quote_hash: quoteHash,
      wallet: filler.publicKey.toBase58(),
      status: 'confirmed',
      tx_hashes: [view.tx_hash],
    });
    expect(await lamports(recipient)).toBe(1_234_567_891n);
    await expect(
      rpc.call(SendOperatorTxRpc, {
        kind: 'fill',
        quote_hash: quoteHash,
        chain: 'solana',
        call: { vm: 'svm', order: orderToWire(order, []) },
      }),
    ).resolves.toEqual(view);
  });

  it('refunds in SOL from the vault, which loses exactly amount_in (the filler pays the fee)', async () => {
    const user = Keypair.generate().publicKey;
    const order = sampleOrder({
      salt: salt(),
      srcChainId: SOLANA_CHAIN_ID,
      srcToken: ZERO_BYTES32,
      amountIn: 2n * SOL,
      refundAddress: toBytes32('svm', user.toBase58()),
      depositTarget: toBytes32('svm', vault.publicKey.toBase58()),
    });
    const before = await lamports(vault.publicKey);
    const view = await settle({
      kind: 'refund',
      quote_hash: hashOrder(order),
      chain: 'solana',
      call: { vm: 'svm', order: orderToWire(order, []) },
    });
    expect(view.status).toBe('confirmed');
    expect(await lamports(user)).toBe(2n * SOL);
    expect(await lamports(vault.publicKey)).toBe(before - 2n * SOL);
  });

  it("reads the filler's SOL", async () => {
    const answer = await rpc.call(OperatorBalanceRpc, { chain: 'solana', token: SOL_TOKEN });
    expect(answer).toMatchObject({
      chain: 'solana',
      token: SOL_TOKEN,
      wallet: filler.publicKey.toBase58(),
      balance: (await lamports(filler.publicKey)).toString(),
    });
  });
});
