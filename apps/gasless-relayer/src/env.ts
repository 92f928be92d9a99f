import { BaseEnv, envSection, loadEnvOrExit, millis, parsedText, port } from '@xchain/service-kit';
import { z } from 'zod';
import { parseChainConfirmations, parseChainMap, parseRpcUrls } from '@xchain/chain-watch';
import { parseKeys, parseOperatorKeys } from './chain/chain-config';
import { parseFeePayerKey, parseSolanaPublicKey } from './svm/fee-payer-key';

/** Anvil's public dev keys #7 and #8: the local stack's relayer wallets, never for real money. */
export const DEV_RELAYER_KEYS =
  '0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356,0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97';

const count = (text: string) => {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 100_000) throw new Error(`${text} is not a whole number of blocks`);
  return n;
};
const wei = (text: string) => {
  if (!/^(0|[1-9][0-9]*)$/.test(text)) throw new Error(`${text} is not an amount in base units`);
  return BigInt(text);
};

/** The port of the health probes and metrics. */
const HttpSection = envSection('HTTP', {
  GASLESS_RELAYER_PORT: port(8084),
});

/** The relayer's database (orders and their transactions) and the Redis of its relay lanes' queues. */
const StorageSection = envSection('Storage', {
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/gasless_relayer'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  /** Key prefix of the relay lanes' BullMQ queues (stacks sharing one Redis set one each). */
  RELAY_QUEUE_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9_-]+$/)
    .default('bull'),
});

/** Requests this service makes to the others over NATS. */
const BusSection = envSection('Bus', {
  NATS_REQUEST_TIMEOUT_MS: millis(2000),
});

/** The EVM chains the relayer sends on, and when a transaction there counts as final. */
const EvmSection = envSection('EVM chains', {
  /** `chain=url,…`: the EVM chains the relayer sends on. A gasless quote from another chain is refused (503). */
  EVM_RPC_URLS: parsedText(parseRpcUrls),
  EVM_RPC_TIMEOUT_MS: millis(5000),
  /** Blocks on top of a relay transaction's block before its order is `confirmed` (the chain watchers' variables, same meaning). */
  CHAIN_WATCH_CONFIRMATIONS: z.coerce.number().int().min(0).max(1000).default(10),
  CHAIN_CONFIRMATIONS: parsedText(parseChainConfirmations),
});

/** The hot wallets that send relayed transactions, the operator's filler wallets, and the balances below which readiness fails. */
const WalletsSection = envSection('EVM wallets', {
  /** Hot wallets (hex private keys, comma-separated): each is one lane on every chain. Never logged. */
  RELAYER_PRIVATE_KEYS: parsedText(parseKeys, DEV_RELAYER_KEYS),
  /**
   * The operator (filler) wallet of each EVM chain (D15): one hex key for all, or `chain=key,…`.
   * It sends fills, cancels, refunds and claims through its own lane; on the routers it is the
   * refunder and the settler, and it must hold the inventory it fills from. Never logged.
   */
  FILLER_PRIVATE_KEYS: parsedText(parseOperatorKeys, ''),
  /** A wallet below this balance (native base units) makes readiness fail. */
  RELAY_WALLET_FLOOR_WEI: parsedText(wei, '10000000000000000'),
  RELAY_WALLET_FLOORS: parsedText((t) => parseChainMap(t, wei, 'wei')),
});

/** How sent EVM transactions are followed, replaced and sent again. */
const RelaySection = envSection('Relaying', {
  /** A relay transaction not mined after this many blocks is replaced with higher fees. */
  RELAY_REPLACE_AFTER_BLOCKS: z.coerce.number().int().min(1).max(10_000).default(3),
  RELAY_REPLACE_AFTER: parsedText((t) => parseChainMap(t, count, 'N')),
  /** Each replacement raises both EIP-1559 fee fields by at least this much (nodes require ≥ 10 %). */
  RELAY_FEE_BUMP_PERCENT: z.coerce.number().int().min(10).max(1000).default(25),
  /** How often submitted transactions are checked for receipts, replacement and rebroadcast. */
  RELAY_POLL_MS: millis(1000),
  /** How often the database's unfinished orders are re-enqueued (a Redis that lost its jobs). */
  RELAY_SWEEP_MS: millis(5000),
});

/** The Solana endpoint, the operator's Solana keys and treasury, and how Solana transactions are followed. */
const SolanaSection = envSection('Solana', {
  /** Solana JSON-RPC endpoint. Without it (or without SOLANA_FEE_PAYER_KEY), a gasless quote from Solana is refused (503 CHAIN_NOT_RELAYED). */
  SOLANA_RPC_URL: z.string().url().optional(),
  SOLANA_RPC_TIMEOUT_MS: millis(5000),
  /**
   * The fee payer's secret key: base58 of the 64-byte secret key, or its JSON byte array (a
   * `solana-keygen` file's content). Its public key must be the registry's `fee_payer` for solana.
   * Never logged.
   */
  SOLANA_FEE_PAYER_KEY: parsedText(parseFeePayerKey),
  /**
   * The operator's Solana filler account (D15), same formats as SOLANA_FEE_PAYER_KEY: it pays fills
   * (its public key must be among the quote-engine's SOLANA_FILLER_ACCOUNTS) and the fees of every
   * Solana operator transaction, refunds included, and holds the Solana inventory. Without it (or
   * without SOLANA_RPC_URL) nothing is settled on Solana (FAILED_PRECONDITION NO_OPERATOR_WALLET).
   * Never logged.
   */
  SOLANA_FILLER_KEY: parsedText(parseFeePayerKey),
  /**
   * The Solana vault (the registry's `deposit_target` for solana), same formats: it co-signs
   * refunds, returns of stray deposits and claims, which move deposits out of it. Without it, those
   * answer NO_OPERATOR_WALLET. Never logged.
   */
  SOLANA_VAULT_KEY: parsedText(parseFeePayerKey),
  /**
   * The operator's Solana treasury (D15): a base58 public key (a wallet, not a token account). Claims
   * pay the deposits of filled orders from the vault to it: SOL to it, an SPL token to its associated
   * token account (opened by the filler when missing). It is the relayer's setting, as an EVM
   * router's treasury is the router's: the quote-engine only names the orders. Without it, Solana
   * claims answer NO_OPERATOR_WALLET and wait, batched, until it is set.
   */
  SOLANA_TREASURY: parsedText(parseSolanaPublicKey),
  /** How often sent Solana transactions are polled (getSignatureStatuses), unsent ones sent and expired operator ones signed again. */
  SOLANA_POLL_MS: millis(1000),
  /** A fee payer below this balance (lamports) makes readiness fail. */
  SOLANA_FEE_PAYER_FLOOR_LAMPORTS: parsedText(wei, '10000000'),
});

export const RelayerEnv = BaseEnv.extend({
  ...HttpSection.shape,
  ...StorageSection.shape,
  ...BusSection.shape,
  ...EvmSection.shape,
  ...WalletsSection.shape,
  ...RelaySection.shape,
  ...SolanaSection.shape,
});
export type RelayerEnv = z.output<typeof RelayerEnv>;

export const loadRelayerEnv = (): RelayerEnv => loadEnvOrExit('gasless-relayer', RelayerEnv);
