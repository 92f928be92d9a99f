import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readEnvSchemas } from './env-schema-reader';

describe('readEnvSchemas', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'env-reader-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const read = (text: string) => {
    const file = join(dir, `env-${Math.random().toString(36).slice(2)}.ts`);
    writeFileSync(file, text);
    return readEnvSchemas(file);
  };

  it('reads types, ranges, defaults and descriptions from the zod chains without running the file', () => {
    const [schema] = read(`
      const interval = (fallback: number) => z.coerce.number().int().min(1).max(86_400_000).default(fallback);
      const KEY = 'k';
      export const AppEnv = BaseEnv.extend({
        /** The port. */
        APP_PORT: port(8080),
        APP_TIMEOUT_MS: millis(2000).describe('How long.'),
        APP_POLL_MS: interval(5 * 1000).meta({ description: 'How often.' }),
        APP_URL: z.string().url().optional(),
        APP_MODE: z.enum(['a', 'b']).default('a'),
        APP_NAME: z.string().min(1).default(KEY),
        APP_SECRET: z.string().transform((s) => s),
      }).superRefine(() => undefined);
      export const env = loadEnvOrExit('app', AppEnv);
    `);
    expect(schema).toMatchObject({ name: 'AppEnv', extends: 'BaseEnv' });
    expect(schema!.variables).toEqual([
      { name: 'APP_PORT', type: 'port', default: '8080', optional: false, doc: 'The port.' },
      { name: 'APP_TIMEOUT_MS', type: 'milliseconds 1–600000', default: '2000', optional: false, doc: 'How long.' },
      { name: 'APP_POLL_MS', type: 'integer 1–86400000', default: '5000', optional: false, doc: 'How often.' },
      { name: 'APP_URL', type: 'URL', default: undefined, optional: true },
      { name: 'APP_MODE', type: 'one of `a`, `b`', default: '`a`', optional: false },
      { name: 'APP_NAME', type: 'non-empty text', default: '`k`', optional: false },
      { name: 'APP_SECRET', type: 'text', default: undefined, optional: false },
    ]);
  });

  it('skips a spread of another shape', () => {
    const [schema] = read(`export const E = z.object({
      ...BaseEnv.shape,
      /** A. */
      A_VAR: z.string().default('x'),
    });`);
    expect(schema!.variables).toEqual([{ name: 'A_VAR', type: 'text', default: '`x`', optional: false, doc: 'A.' }]);
  });

  it('reads the sections a schema is composed of, each under its title with its doc comment', () => {
    const [schema, ...others] = read(`
      /** Where the chains are. */
      const Chains = envSection('Chains', {
        /** An endpoint. */
        CHAIN_URL: z.string().optional(),
        CHAIN_POLL_MS: millis(1000),
      });
      const Storage = envSection('Storage', { DB_POOL: z.coerce.number().int().min(1).max(100).default(10) });
      export const AppEnv = BaseEnv.extend({
        ...Chains.shape,
        ...Storage.shape,
        ...Other.shape,
        /** Own. */
        APP_PORT: port(1),
      });
    `);
    expect(others).toEqual([]);
    expect(schema!.sections).toEqual([
      {
        title: 'Chains',
        doc: 'Where the chains are.',
        variables: [
          { name: 'CHAIN_URL', type: 'text', default: undefined, optional: true, doc: 'An endpoint.' },
          { name: 'CHAIN_POLL_MS', type: 'milliseconds 1–600000', default: '1000', optional: false },
        ],
      },
      { title: 'Storage', variables: [{ name: 'DB_POOL', type: 'integer 1–100', default: '10', optional: false }] },
      { variables: [{ name: 'APP_PORT', type: 'port', default: '1', optional: false, doc: 'Own.' }] },
    ]);
    expect(schema!.variables.map((v) => v.name)).toEqual(['CHAIN_URL', 'CHAIN_POLL_MS', 'DB_POOL', 'APP_PORT']);
  });

  it('finds no schema in a file without an exported object of variables', () => {
    expect(read(`export const x = z.object({ a: z.string() });`)).toEqual([]);
  });
});
