import { Keypair, Transaction } from '@solana/web3.js';
import { memoInstruction } from '@xchain/svm-orders';
import type { Logger } from '@xchain/telemetry';
import type { StatusEvents } from '../relay/status-events';
import type { LaneTx, LaneTxRepository } from '../store/lane-tx.repository';
import type { SignatureStatus, SolanaRpc } from './solana-rpc';
import { type Resign, SvmRelay } from './svm-relay';
import { storedTxFacts } from './svm-transaction';

const feePayer = Keypair.generate();
const blockhash = Keypair.generate().publicKey.toBase58();
const tx = new Transaction({ feePayer: feePayer.publicKey, recentBlockhash: blockhash }).add(memoInstruction('xchain test'));
tx.sign(feePayer);
const svmTx = tx.serialize().toString('base64');
const { signature } = storedTxFacts(svmTx);
const QUOTE = `0x${'ab'.repeat(32)}`;

/** The relay loop over an in-memory lane table and a scripted RPC: what it sends, and how each order ends. */
describe('SvmRelay', () => {
  let row: LaneTx;
  let status: SignatureStatus | undefined;
  let valid: boolean;
  let send: jest.Mock;
  let finished: jest.Mock;
  let publish: jest.Mock;

  const orders = {
    find: async () => ({ ...row, txs: [] }),
    svmInStatus: async (s: string) => (row.status === s ? [row] : []),
    markSvmSubmitted: async (_q: string, sig: string) =>
      row.status === 'queued' && row.svmSignature === sig
        ? ((row = { ...row, status: 'submitted', attempts: row.attempts + 1 }), true)
        : false,
    confirm: async (_q: string, mined: string, slot: bigint, fee: bigint | null) =>
      row.status === 'submitted'
        ? ((row = {
            ...row,
            status: 'confirmed',
            minedTxHash: mined,
            confirmedBlock: slot,
            gasCostWei: fee === null ? null : (fee.toString() as never),
          }),
          true)
        : false,
    fail: async (_q: string, from: string, error: string) =>
      row.status === from ? ((row = { ...row, status: 'failed', error }), true) : false,
  } as unknown as LaneTxRepository;
  const rpc = {
    isBlockhashValid: async () => valid,
    signatureStatus: async () => status,
    feeOf: async () => 10_000n,
    send: (...args: unknown[]) => send(...args),
  } as unknown as SolanaRpc;
  let warn: jest.Mock;
  const relay = (resign?: Resign) =>
    new SvmRelay(
      orders,
      rpc,
      { publish } as unknown as StatusEvents,
      { finished },
      1000,
      { warn, info: jest.fn() } as unknown as Logger,
      resign ? { resign } : null,
    );

  beforeEach(() => {
    row = {
      id: QUOTE,
      kind: 'gasless',
      chain: 'solana',
      vm: 'svm',
      status: 'queued',
      attempts: 0,
      svmTx,
      svmSignature: signature,
      svmExpiredSigs: [],
    } as unknown as LaneTx;
    status = undefined;
    valid = true;
    send = jest.fn(async () => signature);
    finished = jest.fn(async () => undefined);
    publish = jest.fn();
    warn = jest.fn();
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

  describe('an operator transaction (D15)', () => {
    const OP_KEY = `fill-${QUOTE}`;
    const resigned = new Transaction({ feePayer: feePayer.publicKey, recentBlockhash: Keypair.generate().publicKey.toBase58() }).add(
      memoInstruction('xchain test'),
    );
    resigned.sign(feePayer);
    const resignedTx = resigned.serialize().toString('base64');
    const resignedSig = storedTxFacts(resignedTx).signature;
    /** Signs again as SvmOperatorTxs does: a new transaction stored, the row queued, a sent signature kept. */
    const resign = jest.fn<ReturnType<Resign>, Parameters<Resign>>(async (o, from) => {
      if (row.status !== from || row.svmSignature !== o.svmSignature) return false;
      row = {
        ...row,
        status: 'queued',
        svmTx: resignedTx,
        svmSignature: resignedSig,
        svmExpiredSigs: from === 'submitted' ? [...row.svmExpiredSigs, o.svmSignature!] : row.svmExpiredSigs,
      };
      return true;
    });

    beforeEach(() => {
      row = { ...row, id: OP_KEY, kind: 'fill' };
      resign.mockClear();
    });

    it('is signed again, not failed, when its blockhash expired unseen; then the new transaction is sent, and no gasless event is published', async () => {
      row = { ...row, status: 'submitted', attempts: 1 };
      valid = false;
      await relay(resign).pass();
      expect(resign.mock.calls.map(([o, from]) => [o.svmSignature, from])).toEqual([[signature, 'submitted']]);
      expect(row).toMatchObject({ status: 'queued', svmSignature: resignedSig, svmExpiredSigs: [signature] });
      expect(finished).not.toHaveBeenCalled();
      valid = true;
      await relay(resign).pass();
      expect(send.mock.calls).toEqual([[resignedTx]]);
      expect(row).toMatchObject({ status: 'submitted', attempts: 2 });
      expect(publish).not.toHaveBeenCalled();
    });

    it('is signed again from queued when it expired before it was ever sent', async () => {
      valid = false;
      await relay(resign).pass();
      expect(resign.mock.calls.map(([, from]) => from)).toEqual(['queued']);
      expect(row).toMatchObject({ status: 'queued', svmSignature: resignedSig, svmExpiredSigs: [] });
      expect(send).not.toHaveBeenCalled();
    });

    it('waits, unsent and not failed, while no key can sign it again', async () => {
      row = { ...row, status: 'submitted', attempts: 1 };
      valid = false;
      await relay().pass();
      expect(row).toMatchObject({ status: 'submitted', svmSignature: signature });
      expect(warn).toHaveBeenCalledWith(expect.objectContaining({ quote_hash: OP_KEY }), 'Solana order not followed this pass');
      expect(send).not.toHaveBeenCalled();
    });

    it('is not sent when it was signed again after the pass read it (the old bytes stay unsent)', async () => {
      const stale = { ...row };
      row = { ...row, svmTx: resignedTx, svmSignature: resignedSig };
      (orders as unknown as { svmInStatus: (s: string) => Promise<LaneTx[]> }).svmInStatus = async (s) => (s === 'queued' ? [stale] : []);
      await relay(resign).pass();
      expect(send).not.toHaveBeenCalled();
      expect(row.status).toBe('queued');
    });
  });
});
