import { BUS_USERS } from '@xchain/contracts';

/**
 * The Secrets the manifests read and never contain (k8s/README.md says how to create each). A spec
 * checks that the rendered overlays reference exactly these keys, optional exactly where marked, and
 * that the README names each one.
 */
export interface SecretSpec {
  keys: readonly string[];
  /** Keys whose absence leaves the variable unset (a feature off) instead of stopping the pod. */
  optionalKeys?: readonly string[];
}

export const SECRETS: Readonly<Record<string, SecretSpec>> = {
  // Each bus user's password (the service's NATS_PASSWORD and nats-server's variable), and the cluster routes'.
  'xchain-nats-users': { keys: [...BUS_USERS, 'route'] },
  // Each service's own PostgreSQL database URL, as the service's own role (D17: rows of its tables, nothing else).
  'xchain-databases': { keys: ['quote-engine', 'partner-service', 'gasless-relayer'] },
  // Each database's URL as its migrator (the owner of its schema): the migrations Job's only.
  'xchain-database-migrators': { keys: ['quote-engine', 'partner-service', 'gasless-relayer'] },
  // Each Redis-using service's URL with its own ACL user (redis://<user>:<password>@host:port).
  'xchain-redis': { keys: ['gateway', 'gasless-relayer', 'partner-service'] },
  // The Solana operator keys are optional: without them Solana is simply not settled by the system.
  // solana-treasury is a public key (no secret), kept with the Solana accounts it goes with.
  'xchain-signing-keys': {
    keys: ['relayer-private-keys', 'filler-private-keys', 'voucher-signer-key', 'solana-filler-key', 'solana-vault-key', 'solana-treasury'],
    optionalKeys: ['solana-filler-key', 'solana-vault-key', 'solana-treasury'],
  },
  // The partner-service's key for webhook secrets at rest, and the keys it replaced (during a rotation).
  'xchain-encryption-keys': { keys: ['webhook-secret-key', 'webhook-secret-keys-old'], optionalKeys: ['webhook-secret-keys-old'] },
  'xchain-chain-rpc': { keys: ['evm-rpc-urls', 'solana-rpc-url'], optionalKeys: ['evm-rpc-urls', 'solana-rpc-url'] },
  'xchain-api-keys': { keys: ['pyth-api-key', 'zeroex-api-key'], optionalKeys: ['pyth-api-key', 'zeroex-api-key'] },
};
