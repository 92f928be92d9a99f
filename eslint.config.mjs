import { readFileSync, readdirSync, existsSync } from 'node:fs';
import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/** Roots of the projects carrying a tag, read from their project.json. */
function projectRootsTagged(tag) {
  const roots = [];
  for (const parent of ['apps', 'libs', 'tools', 'prisma']) {
    if (!existsSync(parent)) continue;
    for (const name of readdirSync(parent)) {
      const file = `${parent}/${name}/project.json`;
      if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')).tags ?? []).includes(tag)) roots.push(`${parent}/${name}`);
    }
  }
  return roots;
}

const IO_AND_FRAMEWORKS = [
  '@nestjs/*',
  '@nats-io/*',
  '@prisma/*',
  'pg',
  'ioredis',
  'bullmq',
  'fastify',
  '@opentelemetry/*',
  'pino',
  'fs',
  'fs/promises',
  'node:fs',
  'node:fs/promises',
  'net',
  'node:net',
  'http',
  'node:http',
  'https',
  'node:https',
  'child_process',
  'node:child_process',
  'dgram',
  'node:dgram',
];

/** Test files may also use the test tools (servers on free ports, stacks). */
const forTests = (constraints) =>
  constraints.map((c) =>
    c.onlyDependOnLibsWithTags && c.sourceTag.startsWith('type:')
      ? { ...c, onlyDependOnLibsWithTags: [...new Set([...c.onlyDependOnLibsWithTags, 'type:tool'])] }
      : c,
  );

const DEP_CONSTRAINTS = [
  // Apps never import apps; they build on libs.
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:contracts', 'type:infra', 'type:domain', 'type:data'] },
  // The message contracts are schema code only.
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'], allowedExternalImports: ['zod'] },
  // Domain logic is pure: no framework, no I/O.
  { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:contracts'], bannedExternalImports: IO_AND_FRAMEWORKS },
  { sourceTag: 'type:infra', onlyDependOnLibsWithTags: ['type:infra', 'type:contracts'] },
  { sourceTag: 'type:data', onlyDependOnLibsWithTags: [] },
  { sourceTag: 'type:tool', onlyDependOnLibsWithTags: ['type:tool', 'type:contracts', 'type:domain', 'type:infra'] },
  { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:tool', 'type:contracts', 'type:domain', 'type:infra'] },
  // A service's database is its own: nobody else imports its client.
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared'] },
  { sourceTag: 'scope:quote-engine', onlyDependOnLibsWithTags: ['scope:quote-engine', 'scope:shared'] },
  { sourceTag: 'scope:price-oracle', onlyDependOnLibsWithTags: ['scope:price-oracle', 'scope:shared'] },
  { sourceTag: 'scope:gasless-relayer', onlyDependOnLibsWithTags: ['scope:gasless-relayer', 'scope:shared'] },
  { sourceTag: 'scope:partner-service', onlyDependOnLibsWithTags: ['scope:partner-service', 'scope:shared'] },
  { sourceTag: 'scope:web', onlyDependOnLibsWithTags: ['scope:shared'] },
];

/** A missing binding fails the service's start instead of silently turning a feature off (issue 46). */
const NO_OPTIONAL_INJECTION = {
  selector: "Decorator[expression.callee.name='Optional']",
  message: 'bind the collaborator (Nest fails at start when it is missing) instead of @Optional()',
};

export default [
  { ignores: ['dist/**', 'node_modules/**', '**/generated/**', '.data/**', '.test-data/**', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          depConstraints: DEP_CONSTRAINTS,
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
    },
  },
  {
    // Node's built-in modules are not in Nx's graph, so bannedExternalImports cannot see them.
    files: projectRootsTagged('type:domain').map((root) => `${root}/**/*.ts`),
    ignores: ['**/*.spec.ts', '**/*.int.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(node:)?(fs|net|http|https|http2|dgram|child_process|worker_threads|cluster|dns|tls)(/.*)?$',
              message: 'domain libs do no I/O',
            },
          ],
        },
      ],
    },
  },
  {
    // Only repositories touch a database (issue 46): no other file of a service imports a database
    // client, pg or the DB token, or sends SQL. The database providers and tests are the exceptions.
    files: ['apps/*/src/**/*.ts'],
    ignores: ['**/*.repository.ts', '**/db.providers.ts', '**/*.spec.ts', '**/*.int.ts', '**/*.testing.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'pg', message: 'only repositories (*.repository.ts) touch a database' }],
          patterns: [
            {
              group: ['@xchain/*-db', '@prisma/*'],
              message: 'only repositories (*.repository.ts) touch a database: take row types from the repository',
            },
            { group: ['**/db.providers'], importNames: ['DB'], message: 'only repositories (*.repository.ts) inject the database' },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'MemberExpression[property.name=/^\\$(queryRaw|executeRaw|queryRawUnsafe|executeRawUnsafe|transaction)$/]',
          message: 'only repositories (*.repository.ts) send SQL',
        },
        NO_OPTIONAL_INJECTION,
      ],
    },
  },
  {
    files: ['apps/*/src/**/*.repository.ts', 'apps/*/src/**/db.providers.ts'],
    rules: { 'no-restricted-syntax': ['error', NO_OPTIONAL_INJECTION] },
  },
  {
    // The browser pages talk to the API only through the published client, as an integrator would.
    files: ['apps/web/**/*.ts', 'apps/web/**/*.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['@xchain/*', '!@xchain/client'], message: 'the browser pages use the API only through @xchain/client' },
            { regex: '^(node:|zod$)', message: 'the browser pages run in a browser, and take schemas from @xchain/client' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.int.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Tests read JSON answers loosely; the schemas under test are what checks their shape.
      '@typescript-eslint/no-explicit-any': 'off',
      '@nx/enforce-module-boundaries': [
        'error',
        { enforceBuildableLibDependency: false, allow: [], depConstraints: forTests(DEP_CONSTRAINTS) },
      ],
    },
  },
];
