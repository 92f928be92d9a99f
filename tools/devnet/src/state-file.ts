import { readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ROOT, writeSecretFile } from '@xchain/stack';
import type { Devnet } from './start-devnet';

/** What `npm start` leaves for `npm run devnet` to find the running local chains (a 0600 file: it holds keys). */
export interface DevnetState {
  /** chain → JSON-RPC URL. */
  rpcUrls: Record<string, string>;
  /** chain → chain id, so a stale file cannot send to whatever took the port since. */
  chainIds: Record<string, number>;
  /** The process that runs the chains. */
  pid: number;
  startedAt: string;
  /** Variables the services need to use these chains (EVM_RPC_URLS and the local defaults). */
  serviceEnv: Record<string, string>;
  /** The local CCTP attestation API (Circle's `GET /v2/messages/…`), when a chain has a CCTP domain. */
  attestationUrl?: string;
}

/** `<DATA_DIR>/devnet.json`, DATA_DIR defaulting to `.data` at the repository root, as for `npm start`. */
export function devnetStateFile(dataDir = process.env['DATA_DIR'] ?? join(ROOT, '.data')): string {
  return join(resolve(dataDir), 'devnet.json');
}

export function writeDevnetState(
  file: string,
  devnet: Pick<Devnet, 'chains' | 'rpcUrls' | 'attestationUrl'>,
  serviceEnv: Record<string, string> = {},
): void {
  const state: DevnetState = {
    rpcUrls: Object.fromEntries([...devnet.chains].map(([name, c]) => [name, c.rpcUrl])),
    chainIds: Object.fromEntries([...devnet.chains].map(([name, c]) => [name, c.chainId])),
    pid: process.pid,
    startedAt: new Date().toISOString(),
    // The quote-engine's rebalancer asks the devnet's attestation stand-in, as it would ask Circle's.
    serviceEnv: {
      EVM_RPC_URLS: devnet.rpcUrls,
      ...(devnet.attestationUrl ? { CCTP_ATTESTATION_URL: devnet.attestationUrl } : {}),
      ...serviceEnv,
    },
    ...(devnet.attestationUrl ? { attestationUrl: devnet.attestationUrl } : {}),
  };
  // The service variables hold the relayer, filler, Solana fee-payer and vault keys: owner only.
  writeSecretFile(file, `${JSON.stringify(state, null, 2)}\n`, { folder: 'as is' });
}

/** The state, or undefined when no whole file is there (no local chains started, they were stopped, or it is being written). */
export function readDevnetState(file: string): DevnetState | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DevnetState;
  } catch {
    return undefined;
  }
}

export function removeDevnetState(file: string): void {
  rmSync(file, { force: true });
}
