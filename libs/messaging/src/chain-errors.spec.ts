import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RpcError } from '@xchain/contracts';
import { createPublicClient, http, parseAbi } from 'viem';
import { ChainRpcUnavailableError, chainRpcFailure, chainRpcUnavailable, isChainRpcUnavailable, onChain } from './chain-errors';

/** A JSON-RPC endpoint on a free loopback port: `answer` decides each request's fate (undefined: never answer). */
async function endpoint(
  answer: (body: { method: string; id: number }) => { status: number; body: unknown } | undefined,
): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      const a = answer(JSON.parse(text));
      if (!a) return; // hangs, as a stopped node does
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/secret-key-path`, server };
}

const client = (url: string) => createPublicClient({ transport: http(url, { timeout: 300, retryCount: 0 }) });
const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)']);
const read = (url: string) =>
  client(url).readContract({
    address: '0x0000000000000000000000000000000000000001',
    abi: ERC20,
    functionName: 'balanceOf',
    args: ['0x0000000000000000000000000000000000000002'],
  });

describe('chain RPC errors', () => {
  const servers: Server[] = [];
  afterAll(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));
  const serve = async (answer: Parameters<typeof endpoint>[0]) => {
    const e = await endpoint(answer);
    servers.push(e.server);
    return e.url;
  };

  it('a node that does not answer within the transport timeout: the host, a short line, never the request body', async () => {
    const url = await serve(() => undefined);
    const err = await read(url).catch((e: unknown) => e);
    const failure = chainRpcFailure(err);
    expect(failure).toMatchObject({ host: new URL(url).host, url, message: 'TimeoutError: The request took too long to respond.' });
    expect(JSON.stringify(failure)).not.toContain('balanceOf');
    expect((err as Error).message.length).toBeGreaterThan(failure!.message.length); // viem's whole message quotes the request
  });

  it('connection refused and an HTTP error status are failures of the RPC', async () => {
    const closed = await serve(() => undefined);
    await new Promise((r) => servers.pop()!.close(r));
    expect(chainRpcFailure(await read(closed).catch((e: unknown) => e))).toMatchObject({
      message: expect.stringMatching(/^HttpRequestError: HTTP request failed/),
    });
    const failing = await serve(() => ({ status: 502, body: { error: 'bad gateway' } }));
    expect(chainRpcFailure(await read(failing).catch((e: unknown) => e))?.message).toBe(
      'HttpRequestError: HTTP request failed. (HTTP 502)',
    );
    const limited = await serve(({ id }) => ({
      status: 200,
      body: { jsonrpc: '2.0', id, error: { code: -32005, message: 'rate limited' } },
    }));
    expect(isChainRpcUnavailable(await read(limited).catch((e: unknown) => e))).toBe(true);
  });

  it('an answer is not a failure of the RPC: a revert, a malformed result, our own refusals, other timeouts', async () => {
    const reverting = await serve(({ id }) => ({
      status: 200,
      body: { jsonrpc: '2.0', id, error: { code: 3, message: 'execution reverted', data: '0x' } },
    }));
    const revert = await read(reverting).catch((e: unknown) => e);
    expect(revert).toBeInstanceOf(Error);
    expect(chainRpcFailure(revert)).toBeUndefined();
    expect(chainRpcFailure(RpcError.internal())).toBeUndefined();
    expect(chainRpcFailure(new Error('boom'))).toBeUndefined();
    // A fetch's own TimeoutError or a NATS TimeoutError is no chain RPC's unless one of our clients says so.
    const fetchTimeout = Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
    expect(chainRpcFailure(fetchTimeout)).toBeUndefined();
    expect(
      chainRpcFailure(
        new ChainRpcUnavailableError('getLatestBlockhash: timeout', 'https://rpc.example/KEY', { chain: 'solana', cause: fetchTimeout }),
      ),
    ).toEqual({
      host: 'rpc.example',
      url: 'https://rpc.example/KEY',
      chain: 'solana',
      message: 'ChainRpcUnavailableError: getLatestBlockhash: timeout',
    });
    expect(chainRpcFailure({ name: 'SolanaJSONRPCError', code: -32005, message: 'Node is unhealthy' })).toEqual({
      message: 'SolanaJSONRPCError: Node is unhealthy',
    });
    expect(chainRpcFailure({ name: 'SolanaJSONRPCError', code: -32602, message: 'Invalid params' })).toBeUndefined();
  });

  it('onChain names the chain of a failure, lets any other error through, and the answer is 503 CHAIN_RPC_UNAVAILABLE with RetryInfo', async () => {
    const url = await serve(() => undefined);
    const err = await onChain('base', read(url)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChainRpcUnavailableError);
    expect(chainRpcFailure(err)).toMatchObject({ chain: 'base', host: new URL(url).host });
    const other = new Error('not the chain');
    await expect(onChain('base', Promise.reject(other))).rejects.toBe(other);
    expect(chainRpcUnavailable('base').status).toEqual({
      code: 14,
      message: 'the base chain RPC did not answer; retry shortly',
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'CHAIN_RPC_UNAVAILABLE',
          domain: 'xchain.api',
          metadata: { chain: 'base' },
        },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retry_delay: '2s' },
      ],
    });
  });
});
