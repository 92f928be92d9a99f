import { join } from 'node:path';
import { ROOT } from '@xchain/stack';
import { DEV_FILLER_KEY, DEV_RELAYER_KEYS } from './dev-keys';
import { serveConfig } from './serve-config';

describe('serveConfig (what npm start runs locally)', () => {
  it('defaults to ethereum, base and arbitrum on 8545 onwards, the dev relayer wallets and one-second blocks', () => {
    const c = serveConfig({ DATA_DIR: '/tmp/x' });
    expect(c.ports).toEqual({ ethereum: 8545, base: 8546, arbitrum: 8547 });
    expect(c.attesterPort).toBe(8548); // the CCTP attester, after the chains
    expect(c.host).toBe('127.0.0.1');
    expect(serveConfig({ DEVNET_HOST: '0.0.0.0' }).host).toBe('0.0.0.0'); // the chains' container
    expect(c.blockTimeSecs).toBe(1);
    expect(c.relayers).toEqual(['0x14dC79964da2C08b23698B3D3cc7Ca32193d9955', '0x23618e81E3f5cdF7f54C3d65f7FBc0aBf5B21E8f']);
    expect(c.devRelayerKeys).toBe(DEV_RELAYER_KEYS.join(','));
    expect(c.serviceDefaults).toEqual({ CHAIN_WATCH_CONFIRMATIONS: '1', CHAIN_WATCH_POLL_MS: '1000' });
    expect(c.stateFile).toBe('/tmp/x/devnet.json');
    expect(c.chainStateDir).toBe('/tmp/x/chains'); // the chains persist beside the databases
    expect(c.voucherSigner).toBeUndefined();
    // The operator wallet that settles orders: anvil's account #5, handed to the services.
    expect(c.fillerKey).toBe(DEV_FILLER_KEY);
    expect(c.devFillerKey).toBe(DEV_FILLER_KEY);
  });

  it('equips the operator key the services were given, and does not hand it on again', () => {
    const key = `0x${'22'.repeat(32)}`;
    const c = serveConfig({ FILLER_PRIVATE_KEYS: key });
    expect(c.fillerKey).toBe(key);
    expect(c.devFillerKey).toBeUndefined();
  });

  it('follows the variables the operator set, and never hands their keys on', () => {
    const c = serveConfig({
      DEVNET_CHAINS: 'base, optimism',
      ANVIL_BASE_PORT: '9000',
      ANVIL_BLOCK_TIME: '0',
      RELAYER_PRIVATE_KEYS: '0x1111111111111111111111111111111111111111111111111111111111111111',
      VOUCHER_SIGNER_KEY: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
      PARTNERS_CONFIG_FILE: 'test/fixtures/partners.json',
      CHAIN_WATCH_CONFIRMATIONS: '3',
    });
    expect(c.ports).toEqual({ base: 9000, optimism: 9001 });
    expect(c.attesterPort).toBe(9002);
    expect(c.blockTimeSecs).toBe(0);
    expect(c.relayers).toEqual(['0x19E7E376E7C213B7E7e7e46cc70A5dD086DAff2A']);
    expect(c.devRelayerKeys).toBeUndefined();
    expect(c.voucherSigner).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    expect(c.partnersFile).toBe(join(ROOT, 'test/fixtures/partners.json'));
    expect(c.serviceDefaults).toEqual({ CHAIN_WATCH_POLL_MS: '1000' });
  });

  it('names the variable that is wrong', () => {
    expect(() => serveConfig({ ANVIL_BASE_PORT: '65535' })).toThrow(/ANVIL_BASE_PORT/);
    // Three chains and the attester: 65532–65535 fit, one more does not.
    expect(serveConfig({ ANVIL_BASE_PORT: '65532' }).attesterPort).toBe(65535);
    expect(() => serveConfig({ ANVIL_BASE_PORT: '65533' })).toThrow(/no room for 4 ports/);
    expect(() => serveConfig({ ANVIL_BLOCK_TIME: 'soon' })).toThrow(/ANVIL_BLOCK_TIME/);
    expect(() => serveConfig({ RELAYER_PRIVATE_KEYS: '0x12' })).toThrow(/RELAYER_PRIVATE_KEYS/);
    expect(() => serveConfig({ FILLER_PRIVATE_KEYS: `base=0x${'22'.repeat(32)}` })).toThrow(/FILLER_PRIVATE_KEYS/);
  });
});
