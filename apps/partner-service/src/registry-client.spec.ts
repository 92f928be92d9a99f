import { Code, ListChainsRpc, RpcError } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import { provideValue } from '@xchain/service-kit';
import { REGISTRY_CACHE_MS, RegistryClient } from './registry-client';
import { newTestService } from '@xchain/service-kit/testing';
import { chainRef, refusal, tokenRef } from './test-support.testing';

function registry() {
  const t = newTestService(RegistryClient, [provideValue(REGISTRY_CACHE_MS, 60_000)]);
  const rpc = t.mock(RpcClient);
  rpc.call.mockImplementation((async (contract: unknown) =>
    contract === ListChainsRpc
      ? { chains: [chainRef('base', '8453', 'evm')] }
      : { tokens: [tokenRef('base', '0xAbC0000000000000000000000000000000000001', 'USDC', 6)] }) as never);
  return { svc: t.sut, rpc, clock: t.clock };
}

describe('RegistryClient', () => {
  it('asks the quote-engine once per cache lifetime', async () => {
    const { svc, rpc, clock } = registry();
    await expect(svc.chain('base')).resolves.toMatchObject({ chain_id: '8453' });
    clock.advance(59_999);
    await expect(svc.chainById('8453')).resolves.toMatchObject({ chain: 'base' });
    expect(rpc.call).toHaveBeenCalledTimes(2); // chains and tokens, once
    clock.advance(1);
    await svc.chain('base');
    expect(rpc.call).toHaveBeenCalledTimes(4);
  });

  it('finds an EVM token whatever the case of its address', async () => {
    const { svc } = registry();
    await expect(svc.token('base', '0xabc0000000000000000000000000000000000001')).resolves.toMatchObject({ symbol: 'USDC' });
  });

  it('serves the last good copy while the registry is away, and UNAVAILABLE with none', async () => {
    const { svc, rpc, clock } = registry();
    await svc.chain('base');
    rpc.call.mockRejectedValue(new Error('no responders'));
    clock.advance(120_000);
    await expect(svc.chain('base')).resolves.toMatchObject({ chain_id: '8453' });

    const cold = registry();
    cold.rpc.call.mockRejectedValue(new Error('no responders'));
    await expect(cold.svc.chain('base')).rejects.toMatchObject(refusal(Code.UNAVAILABLE, 'REGISTRY_UNAVAILABLE'));
    cold.rpc.call.mockRejectedValue(RpcError.unavailable('timeout', 'TIMEOUT'));
    await expect(cold.svc.chain('base')).rejects.toMatchObject(refusal(Code.UNAVAILABLE, 'TIMEOUT'));
  });
});
