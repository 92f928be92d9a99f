import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPartnersConfig } from './config';

const ROOT = join(__dirname, '../../..');

describe('config/partners.json', () => {
  const config = loadPartnersConfig('config/partners.json');
  const registry = JSON.parse(readFileSync(join(ROOT, 'config/registry.json'), 'utf8')) as {
    chains: { chain: string }[];
    tokens: { chain: string; address: string }[];
  };

  it('funds on a registry chain, in registry tokens', () => {
    expect(registry.chains.map((c) => c.chain)).toContain(config.funding.chain);
    const listed = new Set(registry.tokens.filter((t) => t.chain === config.funding.chain).map((t) => t.address.toLowerCase()));
    for (const t of config.funding.tokens) expect(listed.has(t.toLowerCase())).toBe(true);
  });

  it('names a voucher router for every registry chain, and a default tier that exists', () => {
    expect(Object.keys(config.voucher_routers).sort()).toEqual(registry.chains.map((c) => c.chain).sort());
    expect(config.tiers[config.default_tier]).toBeGreaterThan(0);
  });

  it('refuses a default tier that is not a tier', () => {
    const bad = join(ROOT, '.test-data', `partners-bad-${process.pid}.json`);
    mkdirSync(join(ROOT, '.test-data'), { recursive: true });
    writeFileSync(bad, JSON.stringify({ ...config, default_tier: 'gold' }));
    try {
      expect(() => loadPartnersConfig(bad)).toThrow(/default_tier/);
    } finally {
      rmSync(bad, { force: true });
    }
  });
});
