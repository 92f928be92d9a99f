import { randomBytes } from 'node:crypto';
import { loadEnv } from '@xchain/service-kit';
import { PartnerServiceEnv } from './env';

describe('PartnerServiceEnv: the webhook secret key', () => {
  const base = { NATS_PASSWORD: 'x' };

  it('is required, and refused unless it is 32 bytes, naming the variable', () => {
    expect(() => loadEnv(PartnerServiceEnv, base)).toThrow(/WEBHOOK_SECRET_KEY: required: 32 random bytes as hex or base64/);
    expect(() => loadEnv(PartnerServiceEnv, { ...base, WEBHOOK_SECRET_KEY: 'changeme' })).toThrow(
      /WEBHOOK_SECRET_KEY: must be 32 random bytes/,
    );
    expect(() =>
      loadEnv(PartnerServiceEnv, { ...base, WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'), WEBHOOK_SECRET_KEYS_OLD: 'abc' }),
    ).toThrow(/WEBHOOK_SECRET_KEYS_OLD: key 1: must be 32/);
  });

  it('reads the current key and the old ones as bytes', () => {
    const [cur, old] = [randomBytes(32), randomBytes(32)];
    const env = loadEnv(PartnerServiceEnv, {
      ...base,
      WEBHOOK_SECRET_KEY: cur.toString('base64'),
      WEBHOOK_SECRET_KEYS_OLD: old.toString('hex'),
    });
    expect(env.WEBHOOK_SECRET_KEY).toEqual(cur);
    expect(env.WEBHOOK_SECRET_KEYS_OLD).toEqual([old]);
  });
});
