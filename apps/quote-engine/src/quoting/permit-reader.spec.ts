import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { ERC20_PERMIT_ABI } from '@xchain/evm-gasless';
import { until } from '@xchain/stack';
import { type Hex, type PublicClient, createPublicClient, custom, decodeFunctionData, encodeFunctionResult } from 'viem';
import type { ChainInfo } from '../registry/registry-cache';
import { RpcTokenPermitReader, rpcClients } from './permit-reader';

const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const OWNER = '0x5555555555555555555555555555555555555555';
const chain = { name: 'ethereum', chainId: 1n, vm: 'evm' } as ChainInfo;

type Fn = 'nonces' | 'name' | 'version' | 'eip712Domain';
/** A function's answer: a value to encode, 'revert' (not implemented), or 'down' (the RPC fails). */
type Answer = unknown;

/** A chain that answers eth_call by function name, and counts the calls it saw. */
function fakeChain(answers: Partial<Record<Fn, Answer>>) {
  const calls: string[] = [];
  const client = createPublicClient({
    transport: custom(
      {
        request: async ({ method, params }: { method: string; params: [{ data: Hex }] }) => {
          if (method !== 'eth_call') throw new Error(`unexpected ${method}`);
          const { functionName } = decodeFunctionData({ abi: ERC20_PERMIT_ABI, data: params[0].data });
          calls.push(functionName);
          const answer = answers[functionName as Fn];
          if (answer === undefined || answer === 'revert') throw Object.assign(new Error('execution reverted'), { code: 3, data: '0x' });
          if (answer === 'down') throw new Error('connection refused');
          return encodeFunctionResult({ abi: ERC20_PERMIT_ABI, functionName: functionName as Fn, result: answer as never });
        },
      },
      { retryCount: 0 },
    ),
  }) as PublicClient;
  return { client, calls, reader: new RpcTokenPermitReader((name) => (name === 'ethereum' ? client : undefined)) };
}

const domain5267 = (over: { fields?: Hex; chainId?: bigint; contract?: string } = {}) =>
  [over.fields ?? '0x0f', 'USD Coin', '2', over.chainId ?? 1n, over.contract ?? TOKEN, `0x${'00'.repeat(32)}`, []] as const;

describe('RpcTokenPermitReader', () => {
  it('reads the EIP-5267 domain once per token and the nonce on every quote', async () => {
    const { reader, calls } = fakeChain({ eip712Domain: domain5267(), nonces: 4n });
    expect(await reader.read(chain, TOKEN, OWNER)).toEqual({ name: 'USD Coin', version: '2', nonce: 4n });
    expect(await reader.read(chain, TOKEN, OWNER)).toEqual({ name: 'USD Coin', version: '2', nonce: 4n });
    expect(calls.sort()).toEqual(['eip712Domain', 'nonces', 'nonces']);
  });

  it('falls back to name() and version() for a token without EIP-5267, and to version "1" without version()', async () => {
    const withVersion = fakeChain({ name: 'Dai Stablecoin', version: '7', nonces: 0n });
    expect(await withVersion.reader.read(chain, TOKEN, OWNER)).toEqual({ name: 'Dai Stablecoin', version: '7', nonce: 0n });
    const withoutVersion = fakeChain({ name: 'Plain Permit', nonces: 2n });
    expect(await withoutVersion.reader.read(chain, TOKEN, OWNER)).toEqual({ name: 'Plain Permit', version: '1', nonce: 2n });
  });

  it('answers undefined for a chain without a configured RPC', async () => {
    const { reader, calls } = fakeChain({ eip712Domain: domain5267(), nonces: 1n });
    expect(await reader.read({ ...chain, name: 'base' }, TOKEN, OWNER)).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('rejects when the RPC fails instead of guessing a version, and does not cache the failure', async () => {
    const answers: Partial<Record<Fn, Answer>> = { name: 'USD Coin', version: 'down', nonces: 1n };
    const { reader } = fakeChain(answers);
    await expect(reader.read(chain, TOKEN, OWNER)).rejects.toThrow();
    answers.version = '2';
    expect(await reader.read(chain, TOKEN, OWNER)).toEqual({ name: 'USD Coin', version: '2', nonce: 1n });
  });

  it.each([
    ['has a salt', { fields: '0x1f' as Hex }],
    ['names another chain', { chainId: 10n }],
    ['names another contract', { contract: OWNER }],
  ])('rejects a domain that %s (the permit would not verify)', async (_name, over) => {
    const { reader } = fakeChain({ eip712Domain: domain5267(over), nonces: 1n });
    await expect(reader.read(chain, TOKEN, OWNER)).rejects.toThrow('is not (name, version, chainId, this token)');
  });

  describe('over HTTP', () => {
    let server: Server;
    let url: string;
    const unanswered = new Set<unknown>();
    beforeAll(async () => {
      // Accepts every request and never answers; tracks each until its caller gives up on it.
      server = createServer((_req, res) => {
        unanswered.add(res);
        res.on('close', () => unanswered.delete(res));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('gives every call the configured deadline', async () => {
      const reader = new RpcTokenPermitReader(rpcClients(new Map([['ethereum', url]]), 50));
      await expect(reader.read(chain, TOKEN, OWNER)).rejects.toThrow(/timed out/i);
      // The calls run in parallel: wait until every one was abandoned, not only the first.
      await until('every call abandoned', () => unanswered.size === 0, { timeoutMs: 5000, everyMs: 5 });
      expect(unanswered.size).toBe(0);
    });
  });
});
