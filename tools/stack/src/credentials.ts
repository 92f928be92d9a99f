import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Credentials the local stack and the test servers generate (D17): each in a file readable by its
 * owner only (0600) in a folder only its owner may enter (0700), never printed.
 */
export const credentialsDir = (dataDir: string): string => join(dataDir, 'credentials');

/** The files under `credentialsDir` that people and tools read (docs/operations.md). */
export const CREDENTIAL_FILES = {
  /** The PostgreSQL superuser's password (`postgres`); kept across runs with the data. */
  postgresAdmin: 'postgres-admin.password',
  /** A libpq password file (PGPASSFILE) with every PostgreSQL role of this run, the superuser's included. */
  pgpass: 'pgpass',
  /** Redis' `admin` user (all commands, all keys) of this run. */
  redisAdmin: 'redis-admin.password',
  /** The `operator` NATS user's password of this run, read by partner-admin when NATS_PASSWORD is unset. */
  natsOperator: 'nats-operator.password',
} as const;

/** A fresh password: letters and digits only, starting with a letter, so it fits a URL, a config token and an ACL rule as is. */
export function newPassword(): string {
  return `p${randomBytes(24).toString('hex')}`;
}

/**
 * Writes `content` to `file` as 0600 (also when it already existed with wider rights), its folder
 * 0700; `{ folder: 'as is' }` leaves the folder's rights alone (a secret in a shared data folder,
 * such as `<DATA_DIR>/devnet.json`).
 */
export function writeSecretFile(file: string, content: string, opts: { folder?: 'private' | 'as is' } = {}): void {
  if ((opts.folder ?? 'private') === 'private') {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    chmodSync(dirname(file), 0o700);
  } else {
    mkdirSync(dirname(file), { recursive: true });
  }
  // An existing file is narrowed before the new content goes in, so it is never readable by others.
  restrictSecretFile(file);
  writeFileSync(file, content, { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** Makes an existing secret file 0600 (one an older version wrote with wider rights); nothing when there is none. */
export function restrictSecretFile(file: string): void {
  if (existsSync(file)) chmodSync(file, 0o600);
}

/** The trimmed content of a secret file, or undefined when there is none. */
export function readSecretFile(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  const value = readFileSync(file, 'utf8').trim();
  return value === '' ? undefined : value;
}
