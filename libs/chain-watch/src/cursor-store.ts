/** Where each watcher saved the last block it fully handled, by watcher name. */
export interface CursorStore {
  load(name: string): Promise<bigint | undefined>;
  /** Only ever moves forward, so two replicas (or a retry) cannot move it back. */
  save(name: string, block: bigint): Promise<void>;
  /** Moves it back (never forward): blocks after `block` were replaced by a reorg and are read again. */
  rewind(name: string, block: bigint): Promise<void>;
}

/** What a Prisma client offers for raw SQL; each service passes its own client. */
export interface RawSql {
  $queryRaw<T = unknown>(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<T>;
  $executeRaw(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<number>;
}

/**
 * The cursors in a `chain_cursors (name TEXT PRIMARY KEY, block BIGINT, updated_at TIMESTAMPTZ)`
 * table of the service's own database: same table shape in every service that watches chains.
 */
export function sqlCursorStore(db: RawSql): CursorStore {
  return {
    async load(name) {
      const rows = await db.$queryRaw<{ block: bigint }[]>`SELECT block FROM chain_cursors WHERE name = ${name}`;
      return rows[0]?.block;
    },
    async save(name, block) {
      await db.$executeRaw`
        INSERT INTO chain_cursors (name, block, updated_at) VALUES (${name}, ${block}, now())
        ON CONFLICT (name) DO UPDATE SET block = GREATEST(chain_cursors.block, EXCLUDED.block), updated_at = now()`;
    },
    async rewind(name, block) {
      await db.$executeRaw`UPDATE chain_cursors SET block = LEAST(block, ${block}), updated_at = now() WHERE name = ${name}`;
    },
  };
}
