import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newPassword, pgUrl, testPostgresAdminUrl } from '@xchain/stack';
import { Client } from 'pg';
import { passwordVariable, postgresProvisioning } from './provisioning';

/**
 * The generated k8s/provision/postgres.sql, run by psql as an administrator would (on the test
 * PostgreSQL, its names prefixed so it cannot meet another suite's), gives the split of D17: the
 * migrator builds the schema, the service's role gets its rows and nothing else.
 */
describe('k8s/provision/postgres.sql on a real PostgreSQL', () => {
  const prefix = `pv_${randomBytes(3).toString('hex')}_`;
  const dbs = ['quote_engine', 'partner_service', 'gasless_relayer'];
  const passwords = new Map(dbs.flatMap((d) => [d, `${d}_migrator`]).map((r) => [r, newPassword()]));
  let dir: string;
  const url = (role: string, db: string) =>
    pgUrl(Number(new URL(testPostgresAdminUrl()).port), { user: `${prefix}${role}`, password: passwords.get(role)! }, `${prefix}${db}`);
  const query = async (u: string, sql: string) => {
    const c = new Client({ connectionString: u });
    await c.connect();
    try {
      return await c.query(sql);
    } finally {
      await c.end();
    }
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'provision-'));
    const script = join(dir, 'postgres.sql');
    writeFileSync(script, postgresProvisioning().replace(/\b(quote_engine|partner_service|gasless_relayer)/g, `${prefix}$1`));
    const vars = [...passwords].flatMap(([role, pw]) => ['-v', `${passwordVariable(`${prefix}${role}`)}=${pw}`]);
    execFileSync('psql', [testPostgresAdminUrl(), '-q', '-v', 'ON_ERROR_STOP=1', ...vars, '-f', script], { stdio: 'pipe' });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lets the migrator build the schema and the service role use its rows, nothing more', async () => {
    await query(url('quote_engine_migrator', 'quote_engine'), 'CREATE TABLE t (id BIGSERIAL PRIMARY KEY, v TEXT)');
    await query(url('quote_engine', 'quote_engine'), "INSERT INTO t (v) VALUES ('x')");
    expect((await query(url('quote_engine', 'quote_engine'), 'SELECT v FROM t')).rows).toEqual([{ v: 'x' }]);
    for (const sql of ['TRUNCATE t', 'DROP TABLE t', 'CREATE TABLE u (id INT)']) {
      await expect(query(url('quote_engine', 'quote_engine'), sql)).rejects.toMatchObject({ code: '42501' });
    }
  });

  it("refuses a service role another service's database and the maintenance database", async () => {
    await expect(query(url('quote_engine', 'partner_service'), 'SELECT 1')).rejects.toMatchObject({ code: '42501' });
    const asPartner = url('partner_service', 'partner_service').replace(/\/[^/]+$/, '/postgres');
    await expect(query(asPartner, 'SELECT 1')).rejects.toMatchObject({ code: '42501' });
  });
});
