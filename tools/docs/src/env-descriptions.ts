/**
 * Descriptions of the variables whose schema carries no doc comment, keyed by variable name, or by
 * `service:NAME` where one service uses the name differently. A doc comment in the schema wins;
 * a variable with neither fails the docs spec.
 */
export const ENV_DESCRIPTIONS: Readonly<Record<string, string>> = {
  NATS_URL: 'NATS server(s), comma-separated.',
  NATS_CONNECT_TIMEOUT_MS: 'Deadline of the first connection to NATS.',
  HOST: 'Interface the HTTP port binds to.',
  GATEWAY_PORT: 'The public HTTP port.',
  QUOTE_ENGINE_PORT: 'HTTP port of the health probes (`/livez`, `/readyz`) and `/metrics`.',
  PRICE_ORACLE_PORT: 'HTTP port of the health probes (`/livez`, `/readyz`) and `/metrics`.',
  GASLESS_RELAYER_PORT: 'HTTP port of the health probes (`/livez`, `/readyz`) and `/metrics`.',
  PARTNER_SERVICE_PORT: 'HTTP port of the health probes (`/livez`, `/readyz`) and `/metrics`.',
  BODY_LIMIT_BYTES: 'Largest accepted request body.',
  PUBLIC_BASE_URL: 'Server URL in the OpenAPI document; unset: `http://HOST:GATEWAY_PORT`.',
  KEY_CACHE_MAX_ENTRIES: 'Most API key lookups the cache holds.',
  DATABASE_URL:
    "The service's own database, as its own role (`npm start` passes one per service; in Kubernetes the `xchain-databases` Secret).",
  DATABASE_POOL_SIZE: 'Connections of the Prisma pool.',
  REGISTRY_REFRESH_MS: 'How often the token and chain registry is read again (how soon a change reaches quoting).',
  ETA_WINDOW_HOURS: 'Fulfilment estimates are computed from the orders of this many past hours.',
  ETA_MIN_SAMPLES:
    "Fewest fulfilled orders on a route before their timings are its estimate (else the destination chain's configured default).",
  ETA_REFRESH_MS: 'How often fulfilment estimates are computed again.',
  ZEROEX_API_URL: 'The 0x Swap API (with `SWAP_PRICER=0x`).',
  ZEROEX_API_KEY: 'Key of the 0x Swap API.',
  ZEROEX_TIMEOUT_MS: 'Deadline of each 0x request.',
  SOLANA_RPC_TIMEOUT_MS: 'Deadline of each Solana JSON-RPC call.',
  CHAIN_WATCH_POLL_MS: 'How often the EVM chain watchers read new blocks.',
  SOLANA_WATCH_POLL_MS: 'How often the Solana watcher reads new transactions.',
  SETTLEMENT_POLL_MS: 'Pause between settlement passes (decide new deposits, move open settlements on).',
  SETTLEMENT_FILL_MARGIN_SECS:
    "No fill is started this close to the end of an order's retention (the routers refuse a fill after it); the order is refunded instead.",
  'gasless-relayer:REDIS_URL': "Redis of the relay lanes' BullMQ queues, with the service's own ACL user.",
  EVM_RPC_TIMEOUT_MS: 'Deadline of each EVM JSON-RPC request.',
  CHAIN_CONFIRMATIONS: 'Per-chain depths, `chain=N` comma-separated (`ethereum=12,base=3`), overriding CHAIN_WATCH_CONFIRMATIONS.',
  RELAY_REPLACE_AFTER: 'Per-chain RELAY_REPLACE_AFTER_BLOCKS, `chain=N` comma-separated.',
  RELAY_WALLET_FLOORS: 'Per-chain RELAY_WALLET_FLOOR_WEI, `chain=wei` comma-separated.',
  NATS_REQUEST_TIMEOUT_MS: 'Deadline of requests this service makes to others over NATS.',
  WEBHOOK_BACKOFF_MAX_MS: 'Longest wait between two delivery attempts.',
  PRICE_POLL_MS: 'How often every source is polled.',
  PYTH_HERMES_URL: 'Pyth Hermes endpoint (the `pyth` source).',
  PYTH_TIMEOUT_MS: 'Deadline of each Hermes request.',
  CHAINLINK_RPC_URL: 'EVM JSON-RPC endpoint the Chainlink aggregators are read from; required when PRICE_SOURCES has `chainlink`.',
  CHAINLINK_TIMEOUT_MS: 'Deadline of each Chainlink read.',
};

/** Variables read outside the env schemas: by the local stack (`npm start`), the tools and the shared libs. */
export const UNSCHEMATIZED_VARIABLES: readonly { name: string; readBy: string; default: string; description: string }[] = [
  { name: 'LOG_LEVEL', readBy: 'every service', default: '`info`', description: 'pino log level.' },
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_EXPORTER, OTEL_SERVICE_NAME, OTEL_SDK_DISABLED, …',
    readBy: 'every service',
    default: 'export nothing',
    description: 'Standard OpenTelemetry variables; traces are exported only when an OTLP endpoint or an exporter is set.',
  },
  {
    name: 'DATA_DIR',
    readBy: 'stack, partner-admin',
    default: '`.data`',
    description:
      "Where the local stack keeps data, logs and credentials (`<DATA_DIR>/credentials`); where partner-admin finds the operator's NATS password.",
  },
  {
    name: 'NATS_PORT, REDIS_PORT, POSTGRES_PORT',
    readBy: 'stack',
    default: '`4222`, `6379`, `5432`',
    description: 'Ports of the servers the local stack starts.',
  },
  {
    name: 'NATS_MONITOR_PORT',
    readBy: 'stack',
    default: 'unset',
    description:
      'NATS monitoring on this loopback port; it lists every user and subscription without a login (D17), so it is off unless set.',
  },
  {
    name: 'DEVNET_CHAINS, ANVIL_BASE_PORT, ANVIL_BLOCK_TIME',
    readBy: 'stack (without EVM_RPC_URLS)',
    default: '`ethereum,base,arbitrum`, `8545`, `1`',
    description:
      "Local anvil chains: which, from which port (the local CCTP attester takes the one after the chains'), seconds per block (`0`: one per transaction).",
  },
  {
    name: 'SOLANA_STANDIN_PORT',
    readBy: 'stack (without SOLANA_RPC_URL)',
    default: '`8899`',
    description: 'Port of the local Solana stand-in.',
  },
  {
    name: 'LOG_FILE_MAX_BYTES, LOG_FILE_KEEP',
    readBy: 'stack',
    default: '`20971520`, `3`',
    description:
      'Each log file the stack writes is rotated before a line would take it past the size; that many files are kept, the live one included.',
  },
  {
    name: 'RESTART_DELAY_MS, RESTART_MAX_START_FAILURES',
    readBy: 'stack',
    default: '`1000`, `5`',
    description:
      'A service that exits is started again after this wait, doubled for each restart in a row (at most 30 s; back to the first after a minute up); one that fails to start that many times in a row is left down, with its last log lines.',
  },
  {
    name: 'PROMETHEUS, PROMETHEUS_PORT',
    readBy: 'stack',
    default: 'unset, `9090`',
    description: '`PROMETHEUS=1` also runs Prometheus against the local stack on that port.',
  },
  {
    name: 'NATS_URL, NATS_USER, NATS_PASSWORD',
    readBy: 'partner-admin',
    default: '`nats://127.0.0.1:4222`, `operator`, the file under DATA_DIR',
    description: 'The operator tool connects as the `operator` NATS user (D14).',
  },
  {
    name: 'PARTNER_ADMIN_TIMEOUT_MS',
    readBy: 'partner-admin',
    default: '`10000`',
    description: 'Deadline of each request the operator tool makes.',
  },
];
