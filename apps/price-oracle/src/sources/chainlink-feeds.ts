import { getAddress, isAddress, type Address } from 'viem';

/**
 * `ethereum=0xabc…,usd-coin=0xdef…` → price id → aggregator address. Throws naming the bad entry,
 * so a typo stops the start instead of silently leaving a price unfed.
 */
export function parseChainlinkFeeds(text: string): Map<string, Address> {
  const feeds = new Map<string, Address>();
  for (const entry of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [id, address, ...rest] = entry.split('=').map((s) => s.trim());
    if (!id || !/^[a-z0-9-]+$/.test(id) || !address || rest.length > 0 || !isAddress(address, { strict: false })) {
      throw new Error(`entry "${entry}" is not price_id=0x<40 hex digits>`);
    }
    if (feeds.has(id)) throw new Error(`price id ${id} is listed twice`);
    feeds.set(id, getAddress(address));
  }
  return feeds;
}
