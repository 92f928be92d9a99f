import { parseChainlinkFeeds } from './chainlink-feeds';

describe('parseChainlinkFeeds', () => {
  it('reads price_id=address pairs, checksumming the addresses', () => {
    const feeds = parseChainlinkFeeds(
      ' ethereum=0x5f4ec3df9cbd43714fe2740f5e3616155c5b8419, usd-coin = 0x8fFfFfd4AfB6115b954Bd326cbe7B4BA576818f6,',
    );
    expect([...feeds]).toEqual([
      ['ethereum', '0x5f4eC3Df9cbd43714FE2740f5E3616155c5b8419'],
      ['usd-coin', '0x8fFfFfd4AfB6115b954Bd326cbe7B4BA576818f6'],
    ]);
    expect(parseChainlinkFeeds('').size).toBe(0);
  });

  it.each([
    'ethereum',
    'ethereum=0x123',
    'ETH=0x5f4ec3df9cbd43714fe2740f5e3616155c5b8419',
    'a=0x5f4ec3df9cbd43714fe2740f5e3616155c5b8419=x',
  ])('refuses %j naming the entry', (text) => {
    expect(() => parseChainlinkFeeds(text)).toThrow(/is not price_id=/);
  });

  it('refuses a price id listed twice', () => {
    const a = '0x5f4ec3df9cbd43714fe2740f5e3616155c5b8419';
    expect(() => parseChainlinkFeeds(`ethereum=${a},ethereum=${a}`)).toThrow(/twice/);
  });
});
