// The container suites (*.ctr.ts): they need the images `npm run images` builds and, for
// test/containers, the system `npm run compose:up` runs. Not part of `npm test`: docker/podman/check.sh
// (npm run release:check) runs them with podman's settings.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- Jest loads its configuration as CommonJS
const { projects } = require('../../jest.config.js');
const [unit] = projects;

module.exports = { ...unit, displayName: 'containers', testMatch: ['<rootDir>/{tools,test}/**/*.ctr.ts'] };
