import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chainRpcFailure } from '@xchain/messaging';
import { SolanaRpcClient, SolanaRpcRefused, SolanaRpcUnavailable } from './solana-rpc';

describe('SolanaRpcClient', () => {
  let server: Server;
  let url: string;
  let answer: (method: string) => { status: number; body: string } | undefined;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (d: Buffer) => (raw += d.toString()));
      req.on('end', () => {
        const a = answer((JSON.parse(raw) as { method: string }).method);
        if (!a) return; // never answered
        res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('reads the latest blockhash at the commitment asked for', async () => {
    answer = () => ({
      status: 200,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { value: { blockhash: 'EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N' } } }),
    });
    await expect(new SolanaRpcClient(url, 1000).latestBlockhash('finalized')).resolves.toBe('EkSnNWid2cvwEVnVx9aBqawnmiCNiDgp3gUdkDPTKN1N');
  });

  it('is unavailable (a chain RPC failure on solana) on an HTTP error, a wrong answer or no answer in time', async () => {
    answer = () => ({ status: 503, body: '{}' });
    const http = await new SolanaRpcClient(url, 1000).latestBlockhash().catch((e: unknown) => e);
    expect(http).toBeInstanceOf(SolanaRpcUnavailable);
    expect(chainRpcFailure(http)).toMatchObject({ chain: 'solana', message: 'SolanaRpcUnavailable: getLatestBlockhash: HTTP 503' });
    answer = () => ({ status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: 1, result: { value: {} } }) });
    await expect(new SolanaRpcClient(url, 1000).latestBlockhash()).rejects.toThrow('getLatestBlockhash: unexpected answer');
    answer = () => undefined;
    await expect(new SolanaRpcClient(url, 50).call('getSlot', [])).rejects.toBeInstanceOf(SolanaRpcUnavailable);
  });

  it("is refused, with the node's code, on a JSON-RPC error", async () => {
    answer = () => ({
      status: 200,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32003, message: 'Transaction signature verification failure' } }),
    });
    const refused = await new SolanaRpcClient(url, 1000).call('sendTransaction', []).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SolanaRpcRefused);
    expect(refused).toMatchObject({
      message: 'sendTransaction: Transaction signature verification failure',
      code: -32003,
      reason: 'Transaction signature verification failure',
    });
    expect(chainRpcFailure(refused)).toBeUndefined();
  });
});
