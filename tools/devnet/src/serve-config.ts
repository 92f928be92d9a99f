import { isAbsolute, join } from 'node:path';
import { ROOT } from '@xchain/stack';
import type { Address, Hex } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { DEV_FILLER_KEY, DEV_RELAYER_KEYS } from './dev-keys';
import { devnetStateFile } from './state-file';

/** What `devnet serve` (run by `npm start`) starts, read from the same variables the services read. */
export interface ServeConfig {
  chains: string[];
  /** chain → port: ANVIL_BASE_PORT, then one up per chain. */
  ports: Record<string, number>;
  /** The CCTP attestation stand-in's port: the one after the chains'. */
  attesterPort: number;
  /** DEVNET_HOST: the address the chains listen on (default 127.0.0.1; 0.0.0.0 in a container). */
  host: string;
  blockTimeSecs: number;
  /** The relayer's wallets, given gas on every chain. */
  relayers: Address[];
  /** Set when RELAYER_PRIVATE_KEYS is unset: the public dev keys the services are then given. */
  devRelayerKeys?: string;
  voucherSigner?: Address;
  partnersFile?: string;
  stateFile: string;
  /** Where the local chains keep their state across starts (`<DATA_DIR>/chains`). */
  chainStateDir: string;
  /**
   * The operator wallet's key (FILLER_PRIVATE_KEYS, one key; default anvil's account #5): the
   * relayer fills, cancels, refunds and claims from it, so the local routers name its address as
   * refunder and settler, and the devnet gives it gas, every token and router approvals.
   */
  fillerKey: Hex;
  /** Set when FILLER_PRIVATE_KEYS is unset: the public dev key the services are then given. */
  devFillerKey?: string;
  /** Variables for the services that the caller did not set itself. */
  serviceDefaults: Record<string, string>;
}

const HEX_KEY = /^0x[0-9a-fA-F]{64}$/;

export function serveConfig(env: NodeJS.ProcessEnv): ServeConfig {
  const chains = (env['DEVNET_CHAINS'] ?? 'ethereum,base,arbitrum')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  if (chains.length === 0) throw new Error('DEVNET_CHAINS names no chain');
  const basePort = whole(env, 'ANVIL_BASE_PORT', 8545);
  // One port per chain, then the CCTP attester's.
  if (basePort < 1 || basePort + chains.length > 65535)
    throw new Error(`ANVIL_BASE_PORT=${basePort} leaves no room for ${chains.length + 1} ports`);
  const blockTimeSecs = whole(env, 'ANVIL_BLOCK_TIME', 1);
  const keysText = env['RELAYER_PRIVATE_KEYS'];
  const relayers = (keysText ?? DEV_RELAYER_KEYS.join(','))
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .map((k) => addressOf(k, 'RELAYER_PRIVATE_KEYS'));
  const voucherKey = env['VOUCHER_SIGNER_KEY'];
  const partners = env['PARTNERS_CONFIG_FILE'];
  const fillerText = env['FILLER_PRIVATE_KEYS'];
  if (fillerText !== undefined && !HEX_KEY.test(fillerText.trim()))
    throw new Error(
      'FILLER_PRIVATE_KEYS must be one 32-byte hex private key for the local chains (chain=key lists are for real deployments)',
    );
  const fillerKey = (fillerText?.trim() ?? DEV_FILLER_KEY) as Hex;
  const config: ServeConfig = {
    chains,
    ports: Object.fromEntries(chains.map((c, i) => [c, basePort + i])),
    attesterPort: basePort + chains.length,
    host: env['DEVNET_HOST'] ?? '127.0.0.1',
    blockTimeSecs,
    relayers,
    fillerKey,
    stateFile: devnetStateFile(env['DATA_DIR'] ?? join(ROOT, '.data')),
    chainStateDir: join(env['DATA_DIR'] ?? join(ROOT, '.data'), 'chains'),
    // A local block comes every second or so: one confirmation is enough, and waiting 5 s per poll
    // would only slow every manual try down.
    serviceDefaults: {
      ...(env['CHAIN_WATCH_CONFIRMATIONS'] ? {} : { CHAIN_WATCH_CONFIRMATIONS: '1' }),
      ...(env['CHAIN_WATCH_POLL_MS'] ? {} : { CHAIN_WATCH_POLL_MS: '1000' }),
    },
  };
  if (fillerText === undefined) config.devFillerKey = DEV_FILLER_KEY;
  if (keysText === undefined) config.devRelayerKeys = DEV_RELAYER_KEYS.join(',');
  if (voucherKey) config.voucherSigner = addressOf(voucherKey, 'VOUCHER_SIGNER_KEY');
  // The services read it relative to the repository root (their working directory).
  if (partners) config.partnersFile = isAbsolute(partners) ? partners : join(ROOT, partners);
  return config;
}

function whole(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name}=${raw} is not a whole number`);
  return n;
}

function addressOf(key: string, variable: string): Address {
  if (!HEX_KEY.test(key)) throw new Error(`${variable} holds a value that is not a 32-byte hex private key`);
  return privateKeyToAddress(key as Hex);
}
