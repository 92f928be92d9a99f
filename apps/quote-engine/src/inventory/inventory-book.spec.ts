import { Code, RpcError, errorInfo } from '@xchain/contracts';
import { DependencyOutages, RpcClient } from '@xchain/messaging';
import { LOGGER, Metrics } from '@xchain/service-kit';
import { newTestService } from '@xchain/service-kit/testing';
import { Registry } from 'prom-client';
import { QUOTING_CONFIG } from '../config.tokens';
import { type ChainInfo, RegistryCache } from '../registry/registry-cache';
import { INVENTORY_CONFIG, InventoryBook } from './inventory-book';
import { InventoryRepository } from './inventory.repository';

const USDC = '0xaf88d065e77c8cC2239327C5EDb3A432268e5831';
const chains: Record<string, ChainInfo> = {
  arbitrum: { name: 'arbitrum', vm: 'evm' } as ChainInfo,
  avalanche: { name: 'avalanche', vm: 'evm' } as ChainInfo,
  base: { name: 'base', vm: 'evm' } as ChainInfo,
};

/** A book over a fake relayer: `answers` says what each chain's balance read gives. */
function newBook(answers: Record<string, bigint | Error>, reserved = 0n, maxAgeMs = 60_000, listed: string[] = []) {
  const log = { info: jest.fn(), warn: jest.fn(), error: jest.fn(), debug: jest.fn() };
  const t = newTestService(InventoryBook, [
    { provide: INVENTORY_CONFIG, useValue: { enabled: true, refreshMs: 60_000, maxAgeMs, requestTimeoutMs: 1000 } },
    { provide: LOGGER, useValue: log },
    { provide: Metrics, useValue: new Metrics(new Registry()) },
    { provide: QUOTING_CONFIG, useValue: undefined },
    { provide: DependencyOutages, useValue: undefined },
  ]);
  const rpc = t.mock(RpcClient);
  rpc.call.mockImplementation((async (_c: unknown, req: { chain: string }) => {
    const a = answers[req.chain];
    if (a instanceof Error) throw a;
    return { balance: String(a), chain: req.chain, token: USDC, wallet: '0x', at: '' };
  }) as never);
  const registry = t.mock(RegistryCache);
  registry.listTokens.mockImplementation(() => ({ tokens: listed.map((chain) => ({ chain, address: USDC })) }) as never);
  registry.chain.mockImplementation((n: string) => chains[n]);
  // `reserved` for every token (the fake's tokens are all USDC, keyed `chain:address` lower case).
  const repo = t.mock(InventoryRepository);
  repo.reservedBy.mockImplementation(async () => reserved);
  repo.reservedAll.mockImplementation(async () => new Map(listed.map((chain) => [`${chain}:${USDC.toLowerCase()}`, reserved])));
  return { book: t.sut, rpc, log, repo, clock: t.clock };
}

describe('InventoryBook: what quoting may promise', () => {
  it('promises the balance minus what open fills reserve, keyed whatever the address case', async () => {
    const { book } = newBook({ arbitrum: 1_000_000n }, 400_000n);
    await book.refresh('arbitrum', USDC);
    expect(book.live('arbitrum', USDC.toLowerCase())).toEqual({ kind: 'available', amount: 600_000n });
    expect(newBook({}).book.live('arbitrum', USDC)).toEqual({ kind: 'unmanaged' }); // never read: the configured caps alone
  });

  it('never promises below zero when reservations exceed the balance (a fill just spent it)', async () => {
    const { book } = newBook({ arbitrum: 100n }, 400n);
    await book.refresh('arbitrum', USDC);
    expect(book.live('arbitrum', USDC)).toEqual({ kind: 'available', amount: 0n });
  });

  it('leaves a chain unmanaged when the relayer has no operator wallet or no RPC for it, and refuses a stale reading elsewhere', async () => {
    const noWallet = new RpcError(Code.FAILED_PRECONDITION, 'no operator wallet', [errorInfo('NO_OPERATOR_WALLET')]);
    const noRpc = RpcError.unavailable('the relayer has no RPC for avalanche', 'CHAIN_NOT_RELAYED', 60);
    const { book, log, clock } = newBook({ base: noWallet, avalanche: noRpc, arbitrum: 5n }, 0n, 0, ['base', 'avalanche']);
    // A scheduled pass over both: neither is a failure to warn about (no "balances not read").
    book.onApplicationBootstrap();
    await book.onApplicationShutdown();
    expect(log.warn).not.toHaveBeenCalled();
    expect(book.live('base', USDC)).toEqual({ kind: 'unmanaged' });
    expect(book.live('avalanche', USDC)).toEqual({ kind: 'unmanaged' });
    await book.refresh('arbitrum', USDC);
    clock.advance(5);
    expect(book.live('arbitrum', USDC).kind).toBe('stale');
  });

  it('a scheduled pass reads every token’s reservations in one query, not one per token', async () => {
    const { book, repo } = newBook({ arbitrum: 1_000n, base: 500n }, 300n, 60_000, ['arbitrum', 'base']);
    book.onApplicationBootstrap();
    await book.onApplicationShutdown();
    expect(repo.reservedAll).toHaveBeenCalledTimes(1);
    expect(repo.reservedBy).not.toHaveBeenCalled();
    expect(book.live('arbitrum', USDC)).toEqual({ kind: 'available', amount: 700n });
    expect(book.live('base', USDC)).toEqual({ kind: 'available', amount: 200n });
  });

  it('passes on any other failure (a relayer that does not answer), so the caller can tell', async () => {
    const { book } = newBook({ arbitrum: RpcError.unavailable('timeout', 'DEADLINE', 1) });
    await expect(book.refresh('arbitrum', USDC)).rejects.toThrow('timeout');
    expect(book.live('arbitrum', USDC)).toEqual({ kind: 'unmanaged' });
  });

  it('tells its readers of a scheduled pass only once every token of it is read, so each sees every chain of one refresh', async () => {
    const { book, rpc } = newBook({ arbitrum: 1_000n, base: 500n }, 0n, 60_000, ['arbitrum', 'base']);
    // base answers late: a reader told of arbitrum at once would see base's older reading.
    rpc.call.mockImplementation((async (_c: unknown, req: { chain: string }) => {
      if (req.chain === 'base') await new Promise((r) => setTimeout(r, 20));
      return { balance: req.chain === 'base' ? '500' : '1000', chain: req.chain, token: USDC, wallet: '0x', at: '' };
    }) as never);
    const seen: [string, bigint, bigint | undefined][] = [];
    book.onReading((chain, _token, available) => seen.push([chain, available, book.reading('base', USDC)?.balance]));
    book.onApplicationBootstrap();
    await book.onApplicationShutdown();
    expect(seen).toEqual([
      ['arbitrum', 1_000n, 500n],
      ['base', 500n, 500n],
    ]);
    // A token read on its own (after a fill) is told at once.
    await book.refresh('arbitrum', USDC);
    expect(seen).toHaveLength(3);
  });
});
