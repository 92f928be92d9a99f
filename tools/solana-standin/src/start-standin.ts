import type { AddressInfo } from 'node:net';
import type { PublicKey } from '@solana/web3.js';
import type { KeyLike } from '@xchain/svm-orders';
import type { LiteSVM } from 'litesvm';
import { StandinFunds } from './funding';
import { SolanaLedger } from './ledger';
import { rpcMethods } from './rpc-methods';
import { rpcServer } from './rpc-server';

export interface SolanaStandinOptions {
  /** Loopback port; 0 or unset: a free one. */
  port?: number;
  /** The address it listens on (default 127.0.0.1); `url` stays loopback's. */
  host?: string;
  /** Milliseconds per slot (a validator's ~400). */
  slotMs?: number;
  /** Slots a blockhash stays usable (a validator's 150). */
  blockhashTtlSlots?: number;
  /** Slots from confirmed to finalized (default 32, kept below the blockhash lifetime). */
  finalizedDepth?: number;
  /** Unexpected failures inside a method (answered as -32603). */
  onError?: (err: unknown) => void;
}

export interface SolanaStandin {
  /** The JSON-RPC endpoint, `http://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** The ledger behind it (slots, history) and its litesvm, for tests that look underneath. */
  ledger: SolanaLedger;
  svm: LiteSVM;
  /** Pays the setup's fees and every airdrop. */
  faucet: PublicKey;
  airdrop(to: KeyLike, lamports: bigint): string;
  createMint(opts: { decimals: number; address?: KeyLike }): PublicKey;
  createTokenAccount(owner: KeyLike, mint: KeyLike): PublicKey;
  mintTo(owner: KeyLike, mint: KeyLike, amount: bigint): string;
  /** Opens `n` slots at once (a test that must not wait for the clock). */
  advance(n?: number): void;
  stop(): Promise<void>;
}

/**
 * A Solana JSON-RPC endpoint on loopback over litesvm (System, SPL Token, Associated Token and
 * Memo programs built in), with slots on a clock and expiring blockhashes. For tests and the
 * local stack; nothing persists.
 */
export async function startSolanaStandin(opts: SolanaStandinOptions = {}): Promise<SolanaStandin> {
  const slotMs = opts.slotMs ?? 400;
  if (!Number.isInteger(slotMs) || slotMs < 10) throw new Error('slotMs must be a whole number of at least 10');
  const ledger = new SolanaLedger({
    ...(opts.blockhashTtlSlots !== undefined ? { blockhashTtlSlots: opts.blockhashTtlSlots } : {}),
    ...(opts.finalizedDepth !== undefined ? { finalizedDepth: opts.finalizedDepth } : {}),
  });
  const funds = new StandinFunds(ledger);
  const server = rpcServer(rpcMethods(ledger, funds), opts.onError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'EADDRINUSE' ? new Error(`port ${opts.port} for the Solana stand-in is already in use`) : err),
    );
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const timer = setInterval(() => ledger.advance(), slotMs);
  timer.unref();
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    ledger,
    svm: ledger.svm,
    faucet: funds.faucet.publicKey,
    airdrop: (to, lamports) => funds.airdrop(to, lamports),
    createMint: (o) => funds.createMint(o),
    createTokenAccount: (owner, mint) => funds.createTokenAccount(owner, mint),
    mintTo: (owner, mint, amount) => funds.mintTo(owner, mint, amount),
    advance: (n = 1) => ledger.advance(n),
    async stop() {
      clearInterval(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
