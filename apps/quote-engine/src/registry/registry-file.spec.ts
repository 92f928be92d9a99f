import { parseRegistryFile } from './registry-file';

const chain = {
  chain: 'ethereum',
  chain_id: '1',
  vm: 'evm',
  native_symbol: 'ETH',
  native_decimals: 18,
  enabled: true,
  gasless: true,
  max_gas_drop: '50000000000000000',
  deposit_target: '0x5ca1ab1e00000000000000000000000000000001',
  gasless_executor: '0x5ca1ab1e00000000000000000000000000000002',
};
const usdc = {
  chain: 'ethereum',
  address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48',
  symbol: 'USDC',
  decimals: 6,
  tier: 'stable',
  logo_url: 'https://example.org/usdc.png',
  permit: true,
};

describe('registry file', () => {
  it('checksums EVM addresses', () => {
    const file = parseRegistryFile({ chains: [chain], tokens: [usdc] });
    expect(file.tokens[0]!.address).toBe('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48');
    expect(file.chains[0]!.deposit_target).toBe('0x5Ca1ab1E00000000000000000000000000000001');
  });

  it('rejects a token on an unknown chain, a duplicate, and a malformed address', () => {
    expect(() => parseRegistryFile({ chains: [chain], tokens: [{ ...usdc, chain: 'base' }] })).toThrow(/unknown chain base/);
    expect(() =>
      parseRegistryFile({ chains: [chain], tokens: [usdc, { ...usdc, address: usdc.address.toUpperCase().replace('0X', '0x') }] }),
    ).toThrow(/listed twice/);
    expect(() => parseRegistryFile({ chains: [chain], tokens: [{ ...usdc, address: '0x1234' }] })).toThrow(/not an EVM address/);
  });

  it('requires the gasless executor of a gasless EVM chain', () => {
    const { gasless_executor: _omit, ...noExecutor } = chain;
    expect(() => parseRegistryFile({ chains: [noExecutor], tokens: [] })).toThrow(/gasless_executor/);
  });
});
