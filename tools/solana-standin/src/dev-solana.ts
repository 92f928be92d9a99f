import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PublicKey } from '@solana/web3.js';
import { ROOT } from '@xchain/stack';
import { z } from 'zod';
import { DEV_SOLANA_FEE_PAYER_SEED, DEV_SOLANA_FILLER_SEED, DEV_SOLANA_USER_SEED, DEV_SOLANA_VAULT_SEED, devKeypair } from './dev-keys';
import { type SolanaStandin, startSolanaStandin } from './start-standin';

const SOL_NATIVE = '11111111111111111111111111111111';
const NATIVE_MINT = 'So11111111111111111111111111111111111111112';
/** What each funded account gets: plenty for a local session, far from any u64 limit. */
const FUND_LAMPORTS = 1_000n * 10n ** 9n;
const FUND_TOKEN_UNITS = 1_000_000n;

const Registry = z.object({
  chains: z.array(z.object({ chain: z.string(), vm: z.string(), deposit_target: z.string(), fee_payer: z.string().optional() })),
  tokens: z.array(z.object({ chain: z.string(), address: z.string(), symbol: z.string(), decimals: z.number().int().min(0).max(255) })),
});

export interface DevSolanaOptions {
  /** Registry chain name of the Solana chain (default `solana`). */
  chain?: string;
  registryFile?: string;
  port?: number;
  host?: string;
  slotMs?: number;
  onProgress?: (line: string) => void;
}

export interface DevSolana {
  standin: SolanaStandin;
  /**
   * What the services need to use it: SOLANA_RPC_URL, SOLANA_FILLER_ACCOUNTS, the relayer's
   * SOLANA_FEE_PAYER_KEY, SOLANA_FILLER_KEY and SOLANA_VAULT_KEY (it settles fills and refunds with
   * them) and SOLANA_TREASURY (where it claims filled orders' deposits), and DEV_SOLANA_VAULT /
   * DEV_SOLANA_FEE_PAYER, which the stack writes into the registry it seeds (see tools/stack/src/dev.ts).
   */
  serviceEnv: Record<string, string>;
  filler: PublicKey;
  user: PublicKey;
  /** The local treasury: the filler itself (decision D20), so claims of filled deposits refill its inventory. */
  treasury: PublicKey;
  stop(): Promise<void>;
}

/**
 * The stand-in as `npm start` runs it: every SPL token of the registry's Solana chain as a mint at
 * its registry address; the vault (`deposit_target`) and the gasless fee payer given SOL, the vault
 * an associated token account per mint; the dev filler and the dev user given SOL and 1,000,000
 * whole units of every token. The vault and the fee payer are local dev keys (the registry's are the
 * operator's): the stack seeds a registry naming them, so refunds can be signed and gasless orders
 * relayed locally.
 */
export async function startDevSolana(opts: DevSolanaOptions = {}): Promise<DevSolana> {
  const say = opts.onProgress ?? (() => undefined);
  const registry = Registry.parse(JSON.parse(readFileSync(opts.registryFile ?? join(ROOT, 'config/registry.json'), 'utf8')));
  const name = opts.chain ?? 'solana';
  const chain = registry.chains.find((c) => c.chain === name && c.vm === 'svm');
  if (!chain) throw new Error(`the registry has no svm chain named ${name}`);
  const standin = await startSolanaStandin({
    ...(opts.port !== undefined ? { port: opts.port } : {}),
    ...(opts.host ? { host: opts.host } : {}),
    ...(opts.slotMs !== undefined ? { slotMs: opts.slotMs } : {}),
  });
  try {
    const fillerKey = devKeypair(DEV_SOLANA_FILLER_SEED);
    const filler = fillerKey.publicKey;
    const user = devKeypair(DEV_SOLANA_USER_SEED).publicKey;
    // Local keys for the vault and the fee payer, so refunds can be signed and gasless orders relayed.
    const vaultKey = devKeypair(DEV_SOLANA_VAULT_SEED);
    const vault = vaultKey.publicKey;
    const feePayer = devKeypair(DEV_SOLANA_FEE_PAYER_SEED);
    // Claims pay the filler (D20): what was deposited comes back to the inventory that fills.
    const treasury = filler;
    const tokens = registry.tokens.filter((t) => t.chain === name && t.address !== SOL_NATIVE);
    for (const wallet of [vault, filler, user, feePayer.publicKey]) standin.airdrop(wallet, FUND_LAMPORTS);
    for (const token of tokens) {
      // The native mint is litesvm's own (wrapping SOL is a different flow): only the vault's account.
      if (token.address !== NATIVE_MINT) standin.createMint({ address: token.address, decimals: token.decimals });
      standin.createTokenAccount(vault, token.address);
      if (token.address === NATIVE_MINT) continue;
      for (const wallet of [filler, user]) standin.mintTo(wallet, token.address, FUND_TOKEN_UNITS * 10n ** BigInt(token.decimals));
    }
    say(
      `solana: stand-in at ${standin.url}; ${tokens.length} SPL tokens, vault ${vault.toBase58()}, filler and treasury ${filler.toBase58()}, dev user ${user.toBase58()}`,
    );
    return {
      standin,
      serviceEnv: {
        SOLANA_RPC_URL: standin.url,
        SOLANA_FILLER_ACCOUNTS: filler.toBase58(),
        SOLANA_FEE_PAYER_KEY: JSON.stringify([...feePayer.secretKey]), // the solana-keygen file form
        // The relayer's operator accounts (D15): the filler pays fills and fees, the vault co-signs refunds.
        SOLANA_FILLER_KEY: JSON.stringify([...fillerKey.secretKey]),
        SOLANA_VAULT_KEY: JSON.stringify([...vaultKey.secretKey]),
        // Where the relayer claims filled orders' deposits from the vault (D15).
        SOLANA_TREASURY: treasury.toBase58(),
        DEV_SOLANA_VAULT: vault.toBase58(),
        DEV_SOLANA_FEE_PAYER: feePayer.publicKey.toBase58(),
      },
      filler,
      user,
      treasury,
      stop: () => standin.stop(),
    };
  } catch (err) {
    await standin.stop();
    throw err;
  }
}

/**
 * What `npm start` runs next to the anvils: the dev stand-in on SOLANA_STANDIN_PORT (default 8899),
 * or nothing when SOLANA_RPC_URL points the services at a cluster already.
 */
export async function startLocalSolana(env: NodeJS.ProcessEnv, say: (line: string) => void): Promise<DevSolana | undefined> {
  if (env['SOLANA_RPC_URL']) {
    say(`solana: SOLANA_RPC_URL is set (${env['SOLANA_RPC_URL']}), no stand-in started`);
    return undefined;
  }
  const raw = env['SOLANA_STANDIN_PORT'] ?? '8899';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`SOLANA_STANDIN_PORT=${raw} is not a port number`);
  try {
    // SOLANA_STANDIN_HOST: the address it listens on (default loopback; 0.0.0.0 in a container).
    return await startDevSolana({ port, ...(env['SOLANA_STANDIN_HOST'] ? { host: env['SOLANA_STANDIN_HOST'] } : {}), onProgress: say });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new Error(/already in use/.test(message) ? `${message}; set SOLANA_STANDIN_PORT to a free port` : message);
  }
}
