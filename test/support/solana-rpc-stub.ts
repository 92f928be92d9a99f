import { randomBytes } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { base58Encode } from '@xchain/order-codec';

/**
 * A loopback stand-in for a Solana JSON-RPC node (mainnet cannot be reached here). It answers
 * `getLatestBlockhash` in the real wire format and nothing else.
 */
export async function startSolanaRpcStub(): Promise<{ url: string; blockhash: string; close(): Promise<void> }> {
  const blockhash = base58Encode(randomBytes(32));
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const call = JSON.parse(body || '{}') as { id?: number; method?: string };
      res.setHeader('content-type', 'application/json');
      if (call.method !== 'getLatestBlockhash') {
        res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id ?? null, error: { code: -32601, message: 'Method not found' } }));
        return;
      }
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: call.id,
          result: { context: { apiVersion: '2.1.21', slot: 341197053 }, value: { blockhash, lastValidBlockHeight: 319481262 } },
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, blockhash, close: () => new Promise((r) => server.close(() => r())) };
}
