/** What one search box of the explorer was given, and so where it leads. */
export type SearchTarget =
  | { kind: 'hash'; value: string } // a quote hash or an EVM transaction hash: both are 32 bytes of hex
  | { kind: 'signature'; value: string } // a Solana transaction signature
  | { kind: 'address'; value: string } // an EVM address (any case) or a Solana public key
  | { kind: 'invalid'; value: string };

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

export function classifySearch(input: string): SearchTarget {
  const value = input.trim();
  if (/^0x[0-9a-fA-F]{64}$/.test(value)) return { kind: 'hash', value: value.toLowerCase() };
  if (/^0x[0-9a-fA-F]{40}$/.test(value)) return { kind: 'address', value };
  if (BASE58.test(value) && value.length >= 32 && value.length <= 44) return { kind: 'address', value };
  if (BASE58.test(value) && value.length >= 64 && value.length <= 90) return { kind: 'signature', value };
  return { kind: 'invalid', value };
}

/** The explorer path a search leads to (its shareable URL). */
export function searchPath(target: SearchTarget): string | undefined {
  switch (target.kind) {
    case 'hash':
      return `/explorer/order/${target.value}`;
    case 'signature':
      return `/explorer/tx/${target.value}`;
    case 'address':
      return `/explorer/address/${target.value}`;
    case 'invalid':
      return undefined;
  }
}
