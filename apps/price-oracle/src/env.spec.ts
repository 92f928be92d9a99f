import { loadEnv } from '@xchain/service-kit';
import { PriceOracleEnv } from './env';

describe('PriceOracleEnv', () => {
  it('starts the local stack with no settings: the file source, polled every second', () => {
    const env = loadEnv(PriceOracleEnv, {});
    expect(env).toMatchObject({
      PRICE_ORACLE_PORT: 8083,
      PRICE_SOURCES: ['file'],
      PRICE_POLL_MS: 1000,
      PRICE_MAX_AGE_SECS: 60,
      PRICE_SOURCE_MAX_SILENCE_MS: 15_000,
      PRICES_FILE: 'config/prices.json',
      PRICE_FEEDS_REFRESH_MS: 300_000,
    });
    expect(env.PRICE_WALK_SEED).toBeUndefined();
    expect(env.CHAINLINK_FEEDS.size).toBe(0);
  });

  it('reads sources in priority order and allows an hour-long poll (a test stack whose prices stay put)', () => {
    const env = loadEnv(PriceOracleEnv, { PRICE_SOURCES: 'pyth, file', PRICE_POLL_MS: '3600000', PRICE_WALK_SEED: '7' });
    expect(env.PRICE_SOURCES).toEqual(['pyth', 'file']);
    expect(env.PRICE_POLL_MS).toBe(3_600_000);
    expect(env.PRICE_WALK_SEED).toBe(7);
  });

  it('names each bad variable', () => {
    expect(() => loadEnv(PriceOracleEnv, { PRICE_SOURCES: 'file,coingecko' })).toThrow(/PRICE_SOURCES/);
    expect(() => loadEnv(PriceOracleEnv, { PRICE_SOURCES: 'file,file' })).toThrow(/listed twice/);
    expect(() => loadEnv(PriceOracleEnv, { PRICE_SOURCES: '' })).toThrow(/PRICE_SOURCES/);
    expect(() => loadEnv(PriceOracleEnv, { CHAINLINK_FEEDS: 'ethereum=0x12' })).toThrow(/CHAINLINK_FEEDS/);
  });

  it('refuses the chainlink source without an RPC URL and feeds', () => {
    let message = '';
    try {
      loadEnv(PriceOracleEnv, { PRICE_SOURCES: 'chainlink' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/CHAINLINK_RPC_URL: required/);
    expect(message).toMatch(/CHAINLINK_FEEDS: required/);
    const env = loadEnv(PriceOracleEnv, {
      PRICE_SOURCES: 'chainlink',
      CHAINLINK_RPC_URL: 'http://127.0.0.1:8545',
      CHAINLINK_FEEDS: 'ethereum=0x5f4ec3df9cbd43714fe2740f5e3616155c5b8419',
    });
    expect(env.CHAINLINK_FEEDS.get('ethereum')).toBe('0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419');
  });
});
