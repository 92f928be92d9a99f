import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { Client, escapeIdentifier as ident, escapeLiteral as literal } from 'pg';
import { newPassword } from './credentials';

/**
 * PostgreSQL roles of least privilege (D17). Each service database has two roles:
 * - the service's own (`<database>`): it may connect to its database only and read and write the
 *   rows of its tables (SELECT, INSERT, UPDATE, DELETE; its sequences), nothing else: no DDL, no
 *   TRUNCATE, no other database, no superuser or server-program rights;
 * - its migrator (`<database>_migrator`): it owns the database and every object in it, and is used
 *   only by tools/migrate. Objects it creates are granted to the service's role as they are created
 *   (default privileges), so a migration needs no grant of its own.
 * A per-database migrator rather than one for all: credentials that leak from one migration reach
 * one database.
 */
export interface PgLogin {
  user: string;
  password: string;
}

export interface DatabaseAccess {
  database: string;
  /** The service's role (its DATABASE_URL). */
  service: PgLogin;
  /** The owner, for migrations only. */
  migrator: PgLogin;
}

/** How the superuser reaches a server: loopback TCP with its password. */
export interface PgAdmin {
  port: number;
  password: string;
}

export const PG_SUPERUSER = 'postgres';

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The two roles of `database`, each with a fresh password. */
export function newDatabaseAccess(database: string): DatabaseAccess {
  const migrator = `${database}_migrator`;
  for (const n of [database, migrator]) if (!NAME.test(n)) throw new Error(`unsupported database or role name ${n}`);
  return { database, service: { user: database, password: newPassword() }, migrator: { user: migrator, password: newPassword() } };
}

export function pgUrl(port: number, login: PgLogin, database: string): string {
  return `postgresql://${encodeURIComponent(login.user)}:${encodeURIComponent(login.password)}@127.0.0.1:${port}/${database}`;
}

export const adminLogin = (admin: PgAdmin): PgLogin => ({ user: PG_SUPERUSER, password: admin.password });

/** A client connected as the superuser to `database` (default `postgres`). */
export async function adminClient(admin: PgAdmin, database = 'postgres'): Promise<Client> {
  const c = new Client({
    host: '127.0.0.1',
    port: admin.port,
    user: PG_SUPERUSER,
    password: admin.password,
    database,
    connectionTimeoutMillis: 5000,
    // Every hop has its deadline: a stuck statement fails the start with its error, not a hung start.
    query_timeout: 30_000,
  });
  await c.connect();
  return c;
}

/**
 * A SCRAM-SHA-256 verifier of `password` (RFC 5802/7677, as PostgreSQL stores it): a role's password
 * is set from it, so the password itself never reaches the server, its logs or its statistics.
 */
export function scramVerifier(password: string, iterations = 4096): string {
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password, salt, iterations, 32, 'sha256');
  const clientKey = createHmac('sha256', salted).update('Client Key').digest();
  const storedKey = createHash('sha256').update(clientKey).digest();
  const serverKey = createHmac('sha256', salted).update('Server Key').digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

/** A role that logs in with `passwordSql` and may do nothing beyond what is granted to it. */
export function roleStatement(verb: 'CREATE ROLE' | 'ALTER ROLE', name: string, passwordSql: string): string {
  return `${verb} ${ident(name)} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT PASSWORD ${passwordSql}`;
}

/** Who may connect to the database: its service role; PUBLIC (everyone) nothing. */
export function databaseAccessStatements(database: string, serviceName: string): string[] {
  return [`REVOKE ALL ON DATABASE ${ident(database)} FROM PUBLIC`, `GRANT CONNECT ON DATABASE ${ident(database)} TO ${ident(serviceName)}`];
}

/** Creates the role, or brings an existing one to these attributes and this password. */
export async function upsertRole(admin: Client, login: PgLogin): Promise<void> {
  const exists = await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [login.user]);
  const verb = exists.rowCount ? 'ALTER ROLE' : 'CREATE ROLE';
  await admin.query(roleStatement(verb, login.user, literal(scramVerifier(login.password))));
}

/**
 * Once per server: nobody but the superuser may connect to the maintenance databases. (Each
 * service database drops PUBLIC's rights when it is provisioned.)
 */
export async function hardenCluster(admin: PgAdmin): Promise<void> {
  const c = await adminClient(admin);
  try {
    await c.query('REVOKE ALL ON DATABASE postgres FROM PUBLIC');
    await c.query('REVOKE ALL ON DATABASE template1 FROM PUBLIC');
  } finally {
    await c.end();
  }
}

/**
 * Makes `access.database` exist, owned by its migrator, reachable by its service role only, with
 * the service's rights on what is in it. Idempotent; it also brings a database of an older run
 * (owned by the superuser, open to PUBLIC) to these rules.
 */
export async function provisionDatabase(admin: PgAdmin, access: DatabaseAccess): Promise<void> {
  const { database, service, migrator } = access;
  const c = await adminClient(admin);
  try {
    await upsertRole(c, migrator);
    await upsertRole(c, service);
    const exists = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    await c.query(
      exists.rowCount
        ? `ALTER DATABASE ${ident(database)} OWNER TO ${ident(migrator.user)}`
        : `CREATE DATABASE ${ident(database)} OWNER ${ident(migrator.user)}`,
    );
    for (const sql of databaseAccessStatements(database, service.user)) await c.query(sql);
  } finally {
    await c.end();
  }
  const d = await adminClient(admin, database);
  try {
    for (const sql of inDatabaseStatements(migrator.user, service.user)) await d.query(sql);
  } finally {
    await d.end();
  }
}

/** Statements run in the database itself (as the superuser): objects to the migrator, their rows to the service. */
export function inDatabaseStatements(migratorName: string, serviceName: string): string[] {
  const migrator = ident(migratorName);
  const service = ident(serviceName);
  const owner = literal(migratorName);
  return [
    // Explicitly the migrator's (not pg_database_owner's, whose rights a NOINHERIT role does not use).
    `ALTER SCHEMA public OWNER TO ${migrator}`,
    // Objects an older run created as the superuser go to the migrator (tables carry their indexes,
    // triggers and owned sequences with them).
    `DO $do$
DECLARE r record;
BEGIN
  FOR r IN SELECT c.oid::regclass AS obj FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND pg_get_userbyid(c.relowner) <> ${owner} LOOP
    EXECUTE format('ALTER TABLE %s OWNER TO %I', r.obj, ${owner});
  END LOOP;
  FOR r IN SELECT c.oid::regclass AS obj FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
           WHERE n.nspname = 'public' AND c.relkind = 'S' AND pg_get_userbyid(c.relowner) <> ${owner}
             AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i')) LOOP
    EXECUTE format('ALTER SEQUENCE %s OWNER TO %I', r.obj, ${owner});
  END LOOP;
  FOR r IN SELECT t.oid::regtype AS obj FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
           WHERE n.nspname = 'public' AND t.typtype = 'e' AND pg_get_userbyid(t.typowner) <> ${owner} LOOP
    EXECUTE format('ALTER TYPE %s OWNER TO %I', r.obj, ${owner});
  END LOOP;
  FOR r IN SELECT p.oid::regprocedure AS obj FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
           WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> ${owner} LOOP
    EXECUTE format('ALTER ROUTINE %s OWNER TO %I', r.obj, ${owner});
  END LOOP;
END
$do$`,
    `ALTER DEFAULT PRIVILEGES FOR ROLE ${migrator} IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${service}`,
    `ALTER DEFAULT PRIVILEGES FOR ROLE ${migrator} IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO ${service}`,
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${service}`,
    `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${service}`,
  ];
}
