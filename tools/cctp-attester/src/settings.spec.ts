import { privateKeyToAddress } from 'viem/accounts';
import { DEV_CCTP_ATTESTER_KEY, attesterSettings } from './settings';

const DOMAINS = JSON.stringify({
  6: {
    rpcUrl: 'http://127.0.0.1:8545',
    messageTransmitter: '0xcc7200000000000000000000000000000000a002',
    tokenMessenger: '0xcc7200000000000000000000000000000000a001',
  },
});

describe('attesterSettings', () => {
  it('needs only the domains, and signs with the dev key by default', () => {
    const s = attesterSettings({ CCTP_ATTESTER_DOMAINS: DOMAINS });
    expect(s).toMatchObject({ port: 8790, attesterKey: DEV_CCTP_ATTESTER_KEY, confirmations: 0, fastConfirmations: 0, fastFeeBps: 1 });
    expect(Object.keys(s.domains)).toEqual(['6']);
    expect(privateKeyToAddress(DEV_CCTP_ATTESTER_KEY)).toMatch(/^0x[0-9a-fA-F]{40}$/);
  });

  it('refuses what it cannot use, naming the variable', () => {
    expect(() => attesterSettings({})).toThrow(/CCTP_ATTESTER_DOMAINS is required/);
    expect(() => attesterSettings({ CCTP_ATTESTER_DOMAINS: '{"six": {}}' })).toThrow(/not a domain id/);
    expect(() => attesterSettings({ CCTP_ATTESTER_DOMAINS: DOMAINS.replace('0xcc72', '0xzz72') })).toThrow(/messageTransmitter/);
    expect(() => attesterSettings({ CCTP_ATTESTER_DOMAINS: DOMAINS, CCTP_ATTESTER_FAST_FEE_BPS: '0.5' })).toThrow(
      /CCTP_ATTESTER_FAST_FEE_BPS/,
    );
    expect(() => attesterSettings({ CCTP_ATTESTER_DOMAINS: DOMAINS, CCTP_ATTESTER_KEY: '0x12' })).toThrow(/CCTP_ATTESTER_KEY/);
  });
});
