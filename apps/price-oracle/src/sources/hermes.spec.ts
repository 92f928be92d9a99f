import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pricesFromHermes } from './hermes';
import type { Feed } from './source';

const ETH_FEED = 'ff61491a931112ddf1bd8147cd1b641375f79f5825126d665480874634fd0ace';
const USDC_FEED = 'eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a';
const fixture = () => JSON.parse(readFileSync(join(__dirname, '../fixtures/hermes-latest-eth-usdc.json'), 'utf8'));

describe('pricesFromHermes', () => {
  const feeds: Feed[] = [
    { price_id: 'ethereum', symbol: 'ETH', pyth_feed_id: `0x${ETH_FEED}` },
    { price_id: 'usd-coin', symbol: 'USDC', pyth_feed_id: USDC_FEED },
    { price_id: 'bitcoin', symbol: 'BTC', pyth_feed_id: '0xe62df6c8b4a85fe1a67db44dc12de5db330f7ac66b72dc658afedf0f4a415b43' },
    { price_id: 'bonk', symbol: 'BONK' },
  ];

  it('maps a real-format answer back to price ids, with or without 0x on either side', () => {
    expect(pricesFromHermes(fixture(), feeds)).toEqual([
      { price_id: 'ethereum', price: '351227450000', expo: -8, conf: '171823456', publish_time: 1795372201, source: 'pyth' },
      { price_id: 'usd-coin', price: '99987654', expo: -8, conf: '71235', publish_time: 1795372201, source: 'pyth' },
    ]);
  });

  it('reads ids Hermes answers with 0x and in upper case too', () => {
    const body = fixture();
    body.parsed[0].id = `0x${ETH_FEED.toUpperCase()}`;
    expect(pricesFromHermes(body, feeds).map((p) => p.price_id)).toEqual(['ethereum', 'usd-coin']);
  });

  it('gives every price id sharing a feed its value', () => {
    const shared: Feed[] = [
      { price_id: 'ethereum', symbol: 'ETH', pyth_feed_id: ETH_FEED },
      { price_id: 'weth-test', symbol: 'WETH', pyth_feed_id: `0x${ETH_FEED}` },
    ];
    expect(pricesFromHermes(fixture(), shared).map((p) => p.price_id)).toEqual(['ethereum', 'weth-test']);
  });

  it('ignores feeds nobody asked for and values that cannot be published', () => {
    const body = fixture();
    body.parsed[1].price.price = '-5';
    expect(pricesFromHermes(body, feeds).map((p) => p.price_id)).toEqual(['ethereum']);
    body.parsed[0].price.expo = 2;
    expect(pricesFromHermes(body, feeds)).toEqual([]);
    expect(pricesFromHermes(fixture(), [{ price_id: 'bonk', symbol: 'BONK' }])).toEqual([]);
  });

  it('accepts an answer without parsed entries, and refuses one that is not Hermes format', () => {
    expect(pricesFromHermes({ binary: { encoding: 'hex', data: [] } }, feeds)).toEqual([]);
    expect(() => pricesFromHermes({ parsed: [{ id: ETH_FEED, price: { price: 3512.27, expo: -2 } }] }, feeds)).toThrow('unexpected body');
    expect(() => pricesFromHermes('<html>', feeds)).toThrow('unexpected body');
  });
});
