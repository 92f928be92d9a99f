/**
 * The browser build's `fetchFrom` (the package's `browser` entry swaps it in for source-address.ts):
 * a browser cannot choose the local address of its connections, and node:http does not exist there.
 */
export function fetchFrom(localAddress: string): typeof fetch {
  throw new TypeError(`fetchFrom(${localAddress}): choosing the local address of a connection works in Node only`);
}
