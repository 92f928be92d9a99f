import { type SvmTransactionJson, SvmTransactionJsonSchema } from '@xchain/contracts';
import { z } from 'zod';
import { SolanaRpcClient, SolanaRpcRefused } from './solana-rpc';

/** One entry of getSignaturesForAddress: a transaction that names the address. */
export interface SignatureEntry {
  signature: string;
  slot: number;
  /** Set when the transaction failed: it moved nothing but its fee. */
  err: unknown;
  blockTime: number | null;
}

/** What the Solana readers (order steps, voucher redemptions) ask of a cluster, all at commitment `confirmed`. */
export interface SolanaChain {
  /** Names the cluster: a fresh local validator has a new one, mainnet always the same. */
  genesisHash(): Promise<string>;
  confirmedSlot(): Promise<number>;
  /** Newest first; `before` pages back from that signature (exclusive). */
  signaturesForAddress(address: string, opts: { before?: string; limit: number }): Promise<SignatureEntry[]>;
  /** getTransaction, encoding json; null while the node does not serve it at `confirmed`. */
  transaction(signature: string): Promise<SvmTransactionJson | null>;
  /** The blockhash of a slot's block (getBlock without transactions). */
  blockhash(slot: number): Promise<string>;
}

const Entries = z.array(
  z.object({
    signature: z.string().min(64).max(88),
    slot: z.number().int().nonnegative(),
    err: z.unknown(),
    blockTime: z.number().int().nullable().optional(),
  }),
);
const Block = z.object({ blockhash: z.string() });

/**
 * Solana JSON-RPC over HTTP with a deadline on every call and no retry of its own: the reader's
 * next pass is the retry. Answers are checked against the shapes read, so a wrong endpoint fails
 * loudly rather than being read as "no transactions".
 */
export function httpSolanaChain(url: string, timeoutMs: number): SolanaChain {
  const rpc = new SolanaRpcClient(url, timeoutMs);
  const call = async <T>(method: string, params: unknown[], schema: z.ZodType<T>): Promise<T> => {
    const result = await rpc.call(method, params).catch((err: unknown) => {
      throw err instanceof SolanaRpcRefused ? new Error(`${method}: ${err.code} ${err.reason}`.trim()) : err;
    });
    const parsed = schema.safeParse(result);
    if (!parsed.success) throw new Error(`${method}: unexpected answer (${parsed.error.issues[0]?.message ?? 'bad shape'})`);
    return parsed.data;
  };
  return {
    genesisHash: () => call('getGenesisHash', [], z.string().min(32).max(44)),
    confirmedSlot: () => call('getSlot', [{ commitment: 'confirmed' }], z.number().int().nonnegative()),
    async signaturesForAddress(address, opts) {
      const entries = await call(
        'getSignaturesForAddress',
        [address, { commitment: 'confirmed', limit: opts.limit, ...(opts.before ? { before: opts.before } : {}) }],
        Entries,
      );
      return entries.map((e) => ({ signature: e.signature, slot: e.slot, err: e.err ?? null, blockTime: e.blockTime ?? null }));
    },
    transaction: (signature) =>
      call(
        'getTransaction',
        [signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }],
        SvmTransactionJsonSchema.nullable(),
      ),
    async blockhash(slot) {
      return (
        await call(
          'getBlock',
          [slot, { commitment: 'confirmed', transactionDetails: 'none', rewards: false, maxSupportedTransactionVersion: 0 }],
          Block,
        )
      ).blockhash;
    },
  };
}
