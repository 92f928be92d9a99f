import { evmPublicClient } from './evm-client';

describe('evmPublicClient', () => {
  it('sets the deadline and no retries of its own unless asked', () => {
    const client = evmPublicClient('http://127.0.0.1:8545', { timeoutMs: 1234 });
    expect(client.transport).toMatchObject({ type: 'http', timeout: 1234, retryCount: 0, url: 'http://127.0.0.1:8545' });
    expect(evmPublicClient('http://127.0.0.1:8545', { timeoutMs: 1, retryCount: 2 }).transport.retryCount).toBe(2);
  });
});
