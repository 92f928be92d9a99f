import { parseChainConfirmations, parseRpcUrls } from '@xchain/chain-watch';
import { BaseEnv, envSection, loadEnvOrExit, millis, parsedText, port } from '@xchain/service-kit';
import { parseSvmKeyList } from '@xchain/svm-orders';
import { z } from 'zod';

/** The port of the health probes and metrics. */
const HttpSection = envSection('HTTP', {
  QUOTE_ENGINE_PORT: port(8082),
});

/** The quote-engine's database (registry, stored quotes, orders, settlements). */
const StorageSection = envSection('Storage', {
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/quote_engine'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
});

/** The operator's quoting settings, the registry and prices quotes are made from, and the other services asked over NATS. */
const QuotingSection = envSection('Quoting', {
  /** Operator quoting settings (fees, size band, gas, inventory, suspended pairs). */
  QUOTING_CONFIG_FILE: z.string().default('config/quoting.json'),
  REGISTRY_REFRESH_MS: millis(5000),
  /** A price older than this is stale: quotes needing it fail UNAVAILABLE / STALE_PRICE. */
  PRICE_MAX_AGE_SECS: z.coerce.number().int().min(1).max(86_400).default(60),
  /** A price stamped further ahead of this clock is ignored, so no source can freeze a price. */
  PRICE_MAX_FUTURE_SKEW_SECS: z.coerce.number().int().min(0).max(3600).default(5),
  /** Deadline of requests to other services over NATS (the partner ledger, for sponsor_fees). */
  NATS_REQUEST_TIMEOUT_MS: millis(1500),
});

/** How swap legs are priced: from oracle prices, or by the 0x Swap API. */
const SwapPricingSection = envSection('Swap pricing', {
  /** `oracle` prices swap legs from oracle prices; `0x` asks the 0x Swap API v2 for EVM legs. */
  SWAP_PRICER: z.enum(['oracle', '0x']).default('oracle'),
  ZEROEX_API_URL: z.string().url().default('https://api.0x.org'),
  ZEROEX_API_KEY: z.string().optional(),
  ZEROEX_TIMEOUT_MS: millis(1500),
});

/** What a quote reads from the chains as it is made (permits, destination calls, executability, blockhashes), and its deadlines. */
const QuoteChecksSection = envSection('Quote-time chain reads', {
  /**
   * Deadline of a gasless quote's permit reads (the token's EIP-712 domain and nonce): past it the
   * quote is answered without `erc2612`. Well inside the gateway's deadline of the quote itself.
   */
  QUOTE_PERMIT_READ_TIMEOUT_MS: millis(750),
  /** The highest `destination_call.gas_limit` a quote takes (gas the call gets on the destination). */
  DESTINATION_CALL_MAX_GAS: z.coerce.number().int().min(10_000).max(30_000_000).default(2_000_000),
  /**
   * Deadline of each step of a destination-call quote on the destination (the target's code and gas
   * price, the operator wallet lookup, the simulation of the fill): past it the quote is refused
   * (503). The steps run one after another, so three of these stay inside the gateway's deadline.
   */
  DESTINATION_CALL_TIMEOUT_MS: millis(500),
  /**
   * Deadline of a GetQuote's executability checks (balance, allowance, native gas, gas-drop
   * recipient), all chains together: past it the quote is answered with a CHAIN_UNAVAILABLE issue.
   */
  QUOTE_CHECKS_TIMEOUT_MS: millis(500),
  /**
   * How long a chain's answer to those checks is reused (per chain, wallet and token), and how long
   * a chain that did not answer is left alone (its quotes say CHAIN_UNAVAILABLE meanwhile).
   */
  QUOTE_CHECKS_CACHE_MS: millis(3000),
  /** Gas units a deposit through the router is estimated at, times the chain's gas price, for NATIVE_GAS_SHORT. */
  QUOTE_CHECKS_DEPOSIT_GAS: z.coerce.number().int().min(21_000).max(10_000_000).default(150_000),
  /**
   * A blockhash is reused this long (and nobody asks again this long after a failure), so quoting
   * stays fast; up to 5× this long an older one is served while a fresh one is read behind it.
   */
  SOLANA_BLOCKHASH_CACHE_MS: millis(2000),
});

/** How every quote is stored as it is made. */
const QuoteWriterSection = envSection('Stored quotes: writing', {
  /** The quote writer's own connections: INSERTs of stored quotes in flight at once (quote-writer.ts). */
  QUOTE_WRITE_CONNECTIONS: z.coerce.number().int().min(1).max(32).default(2),
  /** How long a stored-quote INSERT runs before the quotes waiting behind it go on another of those connections (0: at once). */
  QUOTE_WRITE_OVERFLOW_MS: z.coerce.number().int().min(0).max(60_000).default(10),
  /** Whether an idle quote writer sends at the end of the event-loop turn (together with the quotes that arrived in it) rather than at once. */
  QUOTE_WRITE_GATHER: z.stringbool().default(true),
  /** Server-side timeout of each stored-quote INSERT: past it the batch's quotes get 503 DATABASE_UNAVAILABLE. */
  QUOTE_WRITE_STATEMENT_TIMEOUT_MS: millis(5000),
});

/** How long stored quotes and their orders are kept, and the background work that expires and deletes them. */
const RetentionSection = envSection('Stored quotes: retention', {
  /** Stored quotes stay fetchable (and depositable) this long; at least 24 h. */
  QUOTE_RETENTION_SECS: z.coerce
    .number()
    .int()
    .min(86_400)
    .default(7 * 86_400),
  /**
   * Past `retained_until` a quote's order view is still served this long (a quote never deposited
   * as `expired`), so the expiry sweep can push `expired` and clients read it; then NOT_FOUND, and
   * the purge deletes the row once that push went out (or the order was deposited).
   */
  QUOTE_GRACE_SECS: z.coerce
    .number()
    .int()
    .min(3600)
    .max(30 * 86_400)
    .default(86_400),
  /** Pause between runs of the sweep that pushes `expired` for quotes whose retention ended undeposited. */
  QUOTE_EXPIRY_SWEEP_MS: millis(30_000),
  /** Pause between runs of the upkeep of `quotes`' days: days made ahead, days past retention and grace dropped whole. */
  QUOTE_DAYS_INTERVAL_MS: millis(600_000),
  /** Pause between runs of the purge that deletes orders past retention and grace. */
  QUOTE_PURGE_INTERVAL_MS: millis(60_000),
  /** Orders one purge statement deletes at most (a run repeats it until a batch comes back short). */
  QUOTE_PURGE_BATCH: z.coerce.number().int().min(1).max(100_000).default(5000),
  /** Server-side timeout of each purge statement. */
  QUOTE_PURGE_STATEMENT_TIMEOUT_MS: millis(30_000),
});

/** The fulfilment times quotes announce, computed from past orders. */
const EtaSection = envSection('Fulfilment estimates', {
  ETA_WINDOW_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .default(72),
  ETA_MIN_SAMPLES: z.coerce.number().int().min(1).max(1000).default(3),
  ETA_REFRESH_MS: millis(10_000),
});

/** The EVM endpoints, and the watchers that read deposits and fills from them. */
const EvmSection = envSection('EVM chains', {
  /**
   * JSON-RPC endpoints of EVM chains, `chain=url` comma-separated (`base=https://…,ethereum=https://…`).
   * A gasless quote of a `permit: true` token from a chain listed here carries `erc2612` (the read
   * token nonce and EIP-712 domain); from a chain not listed, it carries none. On each chain listed,
   * the deposit watcher reads the router's (`deposit_target`) `Deposited` events, and GetQuote's
   * `issues` are read (balances, allowances, gas price, gas-drop recipients).
   */
  EVM_RPC_URLS: parsedText(parseRpcUrls),
  /** Deadline of each of the deposit watcher's reads. */
  EVM_RPC_TIMEOUT_MS: millis(2000),
  /** Blocks on top of a deposit's block before it counts (reorg safety), unless CHAIN_CONFIRMATIONS names the chain. */
  CHAIN_WATCH_CONFIRMATIONS: z.coerce.number().int().min(0).max(1000).default(10),
  /** Per-chain depths, `chain=N` comma-separated (`ethereum=12,base=3`), overriding CHAIN_WATCH_CONFIRMATIONS. */
  CHAIN_CONFIRMATIONS: parsedText(parseChainConfirmations),
  CHAIN_WATCH_POLL_MS: millis(5000),
  /** Largest block range asked in one eth_getLogs (providers cap it). */
  CHAIN_WATCH_MAX_BLOCK_RANGE: z.coerce.number().int().min(1).max(1_000_000).default(2000),
  /** First block read by a watcher that has read nothing yet; default: the confirmed head at its first start. */
  CHAIN_WATCH_START_BLOCK: z.coerce.number().int().min(0).optional(),
});

/** The Solana endpoint, and the watcher that reads deposits, refunds and fills from it. */
const SolanaSection = envSection('Solana', {
  /**
   * Solana JSON-RPC endpoint: the recent blockhash of a gasless Solana quote's `svm.tx_base64`.
   * Unset, or not answering within SOLANA_RPC_TIMEOUT_MS, such quotes come without `svm`. GetQuote's
   * `issues` read the owner's balance of a Solana source here.
   */
  SOLANA_RPC_URL: z.string().url().optional(),
  SOLANA_RPC_TIMEOUT_MS: millis(1000),
  /**
   * Filler accounts on Solana (base58, comma-separated): the Solana watcher reads fills from their
   * transactions (there is no program to watch), next to the vault's deposits and refunds. The
   * watcher runs when SOLANA_RPC_URL is set.
   */
  SOLANA_FILLER_ACCOUNTS: parsedText(parseSvmKeyList),
  SOLANA_WATCH_POLL_MS: millis(2000),
  /** Deadline of each of the Solana watcher's RPC calls (not on the quote path, so longer than SOLANA_RPC_TIMEOUT_MS). */
  SOLANA_WATCH_TIMEOUT_MS: millis(5000),
  /** First slot a Solana watcher position reads when it has read nothing yet; default: the confirmed slot at its first start. */
  SOLANA_WATCH_START_SLOT: z.coerce.number().int().min(0).optional(),
});

/** Filling or refunding deposited orders from the operator's inventory, claiming their deposits, and reading that inventory. */
const SettlementSection = envSection('Settlement and inventory', {
  /**
   * Settlement (D15): fill each deposited order at depth from the operator's inventory, or refund
   * it, through the relayer's operator wallet (its FILLER_PRIVATE_KEYS). Off: deposits stay put.
   */
  SETTLEMENT_ENABLED: z.stringbool().default(true),
  /**
   * Pause between settlement passes. Passes that find nothing to do wait longer, up to 8 × this,
   * until a deposit is seen (which starts a pass at once).
   */
  SETTLEMENT_POLL_MS: millis(250),
  /** The deposits of confirmed fills are claimed to the treasury in batches gathered this often. */
  SETTLEMENT_CLAIM_EVERY_MS: millis(5000),
  /** No fill is started this close to the end of an order's retention (the routers refuse a fill after it). */
  SETTLEMENT_FILL_MARGIN_SECS: z.coerce.number().int().min(0).max(86_400).default(600),
  /** How often the operator's balance of every EVM destination token is read for live inventory. */
  INVENTORY_REFRESH_MS: millis(10_000),
  /** A live inventory reading older than this refuses quotes to its token (503 INSUFFICIENT_INVENTORY) rather than guess. */
  INVENTORY_MAX_AGE_MS: millis(60_000),
});

/** Moving the operator's inventory between chains toward quoting.json's `inventory_targets` (issue 47). */
const RebalancingSection = envSection('Rebalancing', {
  /** Plan and carry out moves of USDC between EVM chains through CCTP V2. Off: holdings and targets are still shown and alerted on. */
  REBALANCE_ENABLED: z.stringbool().default(true),
  /** Pause between rebalancing passes (planning, and each open move's next step). */
  REBALANCE_POLL_MS: millis(2_000),
  /** A move burned this long ago whose attestation has not come is shown as stuck and alerted on (never burned again). */
  REBALANCE_STUCK_AFTER_MS: millis(1_800_000, 86_400_000),
  /** Circle's attestation API (`/v2/messages/{sourceDomain}?transactionHash=`); the devnet serves a stand-in. */
  CCTP_ATTESTATION_URL: z.string().url().default('https://iris-api.circle.com'),
  /** Bound on each attestation request. */
  CCTP_ATTESTATION_TIMEOUT_MS: millis(5_000),
  /** CCTP V2's TokenMessengerV2, the same address on every EVM chain. */
  CCTP_TOKEN_MESSENGER: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/)
    .default('0x28b5a0e9C621a5BadaA536219b3a228C8168cf5d'),
  /** CCTP V2's MessageTransmitterV2, the same address on every EVM chain. */
  CCTP_MESSAGE_TRANSMITTER: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/)
    .default('0x81D40F21F12A8F0E3252Bccb954D722d4c464B64'),
  /**
   * The finality a burn asks to be attested at: 1000 (a Fast Transfer: seconds, for a fee of at
   * most CCTP_MAX_FEE_BPS) or 2000 (a Standard Transfer: finality, no fee).
   */
  CCTP_MIN_FINALITY_THRESHOLD: z.coerce
    .number()
    .int()
    .pipe(z.union([z.literal(1000), z.literal(2000)]))
    .default(1000),
  /** The most a move lets the attester keep (CCTP `maxFee`), basis points of its amount, rounded up. */
  CCTP_MAX_FEE_BPS: z.coerce.number().int().min(0).max(100).default(2),
});

export const QuoteEngineEnv = BaseEnv.extend({
  ...HttpSection.shape,
  ...StorageSection.shape,
  ...QuotingSection.shape,
  ...SwapPricingSection.shape,
  ...QuoteChecksSection.shape,
  ...QuoteWriterSection.shape,
  ...RetentionSection.shape,
  ...EtaSection.shape,
  ...EvmSection.shape,
  ...SolanaSection.shape,
  ...SettlementSection.shape,
  ...RebalancingSection.shape,
});
export type QuoteEngineEnv = z.output<typeof QuoteEngineEnv>;

export const loadQuoteEngineEnv = (): QuoteEngineEnv => loadEnvOrExit('quote-engine', QuoteEngineEnv);
