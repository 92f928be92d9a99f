// One Jest config, three suites. Unit specs sit next to the code; integration (*.int.ts) and
// end-to-end (test/e2e) suites need the servers that scripts/test.sh starts.
const swc = JSON.parse(require('fs').readFileSync(`${__dirname}/.swcrc`, 'utf8'));
const { paths } = require('./tsconfig.base.json').compilerOptions;

const moduleNameMapper = Object.fromEntries(
  Object.entries(paths).map(([alias, [target]]) => [`^${alias}$`, `<rootDir>/${target}`]),
);
const base = {
  rootDir: __dirname,
  testEnvironment: 'node',
  transform: {
    '^.+\\.(t|j|mj)s$': ['@swc/jest', { ...swc, jsc: { ...swc.jsc, baseUrl: __dirname }, swcrc: false }],
  },
  // Nest 12 and @nats-io are ESM-only: let swc turn them into CommonJS for Jest.
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|@nats-io|@seriousme)/)'],
  moduleNameMapper,
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
};

module.exports = {
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'] },
    { ...base, displayName: 'integration', testMatch: ['<rootDir>/{apps,libs,tools}/**/*.int.ts'] },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e.ts'],
      // Notes each gateway answer's trace id with its test, for the failure reporter (scripts/test.sh).
      setupFilesAfterEnv: ['<rootDir>/test/support/trace-ids.setup.ts'],
    },
  ],
};
