import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for a funded wallet's mainnet RPC, for benchmarks only: it answers the JSON-RPC reads
 * of GetQuote's checks (executability.ts: eth_getBalance, eth_call for balanceOf and allowance,
 * eth_gasPrice, eth_getCode) in Ethereum's wire format, as a node would for a wallet holding plenty
 * and having approved everything, so a bench's quotes carry no issue, as an operator's with its RPCs
 * configured do for a funded wallet. Anything else is answered "method not found".
 */
export async function startRpcStub(chainId: number): Promise<{ url: string; calls: () => number; stop: () => Promise<void> }> {
  let calls = 0;
  const answer = (req: { id?: unknown; method?: string }) => {
    calls++;
    const ok = (result: unknown) => ({ jsonrpc: '2.0', id: req.id ?? null, result });
    switch (req.method) {
      case 'eth_chainId':
        return ok(`0x${chainId.toString(16)}`);
      case 'eth_getBalance':
        return ok('0x56bc75e2d63100000'); // 100 ETH
      case 'eth_call':
        return ok(`0x${'f'.repeat(64)}`); // balanceOf, allowance: the most a uint256 holds
      case 'eth_gasPrice':
        return ok('0x3b9aca00'); // 1 gwei
      case 'eth_getCode':
        return ok('0x'); // an account, not a contract
      case 'eth_blockNumber':
        return ok('0x1');
      default:
        return { jsonrpc: '2.0', id: req.id ?? null, error: { code: -32601, message: `the method ${req.method} does not exist` } };
    }
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      let out: unknown;
      try {
        const parsed = JSON.parse(body) as unknown;
        out = Array.isArray(parsed)
          ? parsed.map((r) => answer(r as { id?: unknown; method?: string }))
          : answer(parsed as { method?: string });
      } catch {
        out = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } };
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(out));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => calls,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
