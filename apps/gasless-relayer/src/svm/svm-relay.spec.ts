import { Keypair, Transaction } from '@solana/web3.js';
import type { GaslessOrder } from '@xchain/gasless-relayer-db';
import { memoInstruction } from '@xchain/svm-orders';
import type { Logger } from '@xchain/telemetry';
import type { OrderRepository } from '../orders/order.repository';
import type { StatusEvents } from '../orders/status-events';
import type { SignatureStatus, SolanaRpc } from './solana-rpc';
import { SvmRelay } from './svm-relay';
import { storedTxFacts } from './svm-transaction';

const feePayer = Keypair.generate();
const blockhash = Keypair.generate().publicKey.toBase58();
const tx = new Transaction({ feePayer: feePayer.publicKey, recentBlockhash: blockhash }).add(memoInstruction('xchain test'));
tx.sign(feePayer);
const svmTx = tx.serialize().toString('base64');
const { signature } = storedTxFacts(svmTx);
const QUOTE = `0x${'ab'.repeat(32)}`;

/** The relay loop over an in-memory order table and a scripted RPC: what it sends, and how each order ends. */
describe('SvmRelay', () => {
  let row: GaslessOrder;
  let status: SignatureStatus | undefined;
  let valid: boolean;
  let send: jest.Mock;
  let finished: jest.Mock;
  let publish: jest.Mock;

  const orders = {
    find: async () => ({ ...row, txs: [] }),
    svmInStatus: async (s: string) => (row.status === s ? [row] : []),
    markSvmSubmitted: async () => (row.status === 'queued' ? ((row = { ...row, status: 'submitted', attempts: row.attempts + 1 }), true) : false),
    confirm: async (_q: string, mined: string, slot: bigint, fee: bigint | null) =>
      row.status === 'submitted' ? ((row = { ...row, status: 'confirmed', minedTxHash: mined, confirmedBlock: slot, gasCostWei: fee === null ? null : (fee.toString() as never) }), true) : false,
    fail: async (_q: string, from: string, error: string) => (row.status === from ? ((row = { ...row, status: 'failed', error }), true) : false),
  } as unknown as OrderRepository;
  const rpc = {
    isBlockhashValid: async () => valid,
    signatureStatus: async () => status,
    feeOf: async () => 10_000n,
    send: (...args: unknown[]) => send(...args),
  } as unknown as SolanaRpc;
  const relay = () => new SvmRelay(orders, rpc, { publish } as unknown as StatusEvents, finished, 1000, { warn: jest.fn(), info: jest.fn() } as unknown as Logger);

  beforeEach(() => {
    row = { quoteHash: QUOTE, chain: 'solana', vm: 'svm', status: 'queued', attempts: 0, svmTx, svmSignature: signature, holdState: null } as unknown as GaslessOrder;
    status = undefined;
    valid = true;
    send = jest.fn(async () => signature);
    finished = jest.fn(async () => undefined);
    publish = jest.fn();
  });

  it('sends a queued order once, the stored bytes, then confirms it at `confirmed` with its slot and fee', async () => {
    const r = relay();
    await r.pass();
    expect(row.status).toBe('submitted');
    expect(send.mock.calls).toEqual([[svmTx]]);
    expect(publish).toHaveBeenCalledWith('solana', { quote_hash: QUOTE, status: 'submitted', tx_hash: signature, tx_hashes: [signature] });
    status = { slot: 77, confirmationStatus: 'processed', err: null };
    await r.pass();
    expect(row.status).toBe('submitted'); // processed is not enough
    expect(send).toHaveBeenCalledTimes(1); // seen: not sent again
    status = { slot: 77, confirmationStatus: 'confirmed', err: null };
    await r.pass();
    expect(row).toMatchObject({ status: 'confirmed', minedTxHash: signature, confirmedBlock: 77n, gasCostWei: '10000' });
    expect(finished).toHaveBeenCalledWith('solana', QUOTE);
  });

  it('sends the same bytes again while the blockhash is valid and the node has not seen them (a dropped send, a restart)', async () => {
    row = { ...row, status: 'submitted', attempts: 1 };
    await relay().pass();
    await relay().pass();
    expect(send.mock.calls).toEqual([[svmTx], [svmTx]]);
    expect(row.status).toBe('submitted');
  });

  it('fails BLOCKHASH_EXPIRED once the blockhash expired and the signature was never seen; waits when it shows up at the last look', async () => {
    row = { ...row, status: 'submitted', attempts: 1 };
    valid = false;
    let looks = 0;
    const seenLate: SignatureStatus = { slot: 5, confirmationStatus: 'processed', err: null };
    (rpc as unknown as { signatureStatus: () => Promise<unknown> }).signatureStatus = async () => (++looks === 2 ? seenLate : undefined);
    await relay().pass();
    expect(row.status).toBe('submitted');
    (rpc as unknown as { signatureStatus: () => Promise<unknown> }).signatureStatus = async () => status;
    await relay().pass();
    expect(row.status).toBe('failed');
    expect(row.error).toMatch(/^BLOCKHASH_EXPIRED: /);
    expect(send).not.toHaveBeenCalled();
    expect(finished).toHaveBeenCalledTimes(1);
  });

  it('fails a queued order whose blockhash expired before it was ever sent, without sending it', async () => {
    valid = false;
    await relay().pass();
    expect(row).toMatchObject({ status: 'failed', attempts: 0 });
    expect(row.error).toMatch(/^BLOCKHASH_EXPIRED: /);
    expect(send).not.toHaveBeenCalled();
  });

  it('fails TX_REVERTED when the transaction landed with an error (its fee was still charged)', async () => {
    row = { ...row, status: 'submitted', attempts: 1 };
    status = { slot: 9, confirmationStatus: 'finalized', err: { InstructionError: [0, { Custom: 1 }] } };
    await relay().pass();
    expect(row.status).toBe('failed');
    expect(row.error).toBe(`TX_REVERTED: ${signature} failed in slot 9: {"InstructionError":[0,{"Custom":1}]}`);
  });
});
