import { randomBytes } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Transaction, VersionedTransaction } from '@solana/web3.js';
import { base58Encode } from '@xchain/order-codec';

/** A transaction as the test cluster keeps it: the getTransaction (encoding json) answer. */
interface Stored {
  signature: string;
  slot: number;
  blockTime: number;
  err: unknown;
  keys: string[];
  json: Record<string, unknown>;
}

/**
 * A Solana JSON-RPC server for tests of the redemption reader, on a free loopback port. It stands
 * in for a cluster running the voucher program (no BPF binary of it exists here): the tests hand
 * it real signed transactions and whether the program accepted them, and it answers
 * getGenesisHash, getSlot, getLatestBlockhash, getSignaturesForAddress and getTransaction in
 * Solana's wire format (legacy messages, encoding json).
 */
export class TestSolanaRpc {
  readonly calls: string[] = [];
  genesisHash = base58Encode(new Uint8Array(32).fill(5));
  slot = 1000;
  blockhash = base58Encode(new Uint8Array(32).fill(6));
  private readonly txs: Stored[] = [];
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString('utf8')));
      req.on('end', () => {
        const { id, method, params } = JSON.parse(body) as { id: number; method: string; params: unknown[] };
        this.calls.push(method);
        const out = this.answer(method, params);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify('error' in out ? { jsonrpc: '2.0', id, error: out.error } : { jsonrpc: '2.0', id, result: out.result }));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** A fresh cluster (a local validator started anew): another genesis hash, no history, a low slot. */
  reset(slot: number): void {
    this.genesisHash = base58Encode(randomBytes(32));
    this.slot = slot;
    this.txs.length = 0;
  }

  /**
   * Lands a signed legacy transaction in the next slot (confirmed at once); `err` is the
   * TransactionError the program's run ended with, null when it succeeded.
   */
  land(tx: Transaction, err: unknown = null): { signature: string; slot: number; blockTime: number } {
    const v = VersionedTransaction.deserialize(tx.serialize());
    const m = v.message;
    const keys = m.staticAccountKeys.map((k) => k.toBase58());
    const slot = ++this.slot;
    const blockTime = 1_790_000_000 + slot;
    const signature = base58Encode(v.signatures[0]!);
    const fee = 5000 * m.header.numRequiredSignatures;
    const pre = keys.map((_, i) => (i === 0 ? 1_000_000_000 : 0));
    const json = {
      slot,
      blockTime,
      version: 'legacy',
      transaction: {
        signatures: v.signatures.map((s) => base58Encode(s)),
        message: {
          accountKeys: keys,
          header: m.header,
          recentBlockhash: m.recentBlockhash,
          instructions: m.compiledInstructions.map((ix) => ({
            programIdIndex: ix.programIdIndex,
            accounts: [...ix.accountKeyIndexes],
            data: base58Encode(ix.data),
            stackHeight: null,
          })),
        },
      },
      meta: {
        err,
        status: err === null ? { Ok: null } : { Err: err },
        fee,
        preBalances: pre,
        postBalances: pre.map((b, i) => (i === 0 ? b - fee : b)),
        innerInstructions: [],
        logMessages: [],
        preTokenBalances: [],
        postTokenBalances: [],
        rewards: [],
        loadedAddresses: { writable: [], readonly: [] },
        computeUnitsConsumed: 30_000,
      },
    };
    this.txs.push({ signature, slot, blockTime, err, keys, json });
    return { signature, slot, blockTime };
  }

  private answer(method: string, params: unknown[]): { result: unknown } | { error: { code: number; message: string } } {
    switch (method) {
      case 'getGenesisHash':
        return { result: this.genesisHash };
      case 'getSlot':
        return { result: this.slot };
      case 'getLatestBlockhash':
        return { result: { context: { slot: this.slot }, value: { blockhash: this.blockhash, lastValidBlockHeight: this.slot + 150 } } };
      case 'getSignaturesForAddress': {
        const [address, opts] = params as [string, { limit?: number; before?: string } | undefined];
        let list = this.txs.filter((t) => t.keys.includes(address)).reverse();
        if (opts?.before) {
          const at = list.findIndex((t) => t.signature === opts.before);
          if (at < 0) return { error: { code: -32602, message: 'Invalid param: before signature not found' } };
          list = list.slice(at + 1);
        }
        const limit = opts?.limit ?? 1000;
        return {
          result: list.slice(0, limit).map((t) => ({
            signature: t.signature,
            slot: t.slot,
            err: t.err,
            memo: null,
            blockTime: t.blockTime,
            confirmationStatus: 'confirmed',
          })),
        };
      }
      case 'getTransaction': {
        const [signature] = params as [string];
        return { result: this.txs.find((t) => t.signature === signature)?.json ?? null };
      }
      default:
        return { error: { code: -32601, message: 'Method not found' } };
    }
  }
}
