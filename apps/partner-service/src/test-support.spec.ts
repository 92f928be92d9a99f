import { FakeClock } from '@xchain/service-kit';
import { AccountsService } from './accounts/accounts.service';
import { KeysRepository } from './accounts/keys.repository';
import { LedgerRepository } from './ledger/ledger.repository';
import { LedgerService } from './ledger/ledger.service';
import { newTestService } from '@xchain/service-kit/testing';
import { FAKE_TX } from './test-support.testing';

describe('newTestService', () => {
  it('injects a mock of each class token, a fake clock, and runs a repository transaction on the fake handle', async () => {
    const t = newTestService(LedgerService);
    const repo = t.mock(LedgerRepository);
    expect(jest.isMockFunction(repo.insert)).toBe(true);
    expect(t.clock).toBeInstanceOf(FakeClock);
    await expect(repo.transaction(async (tx) => tx)).resolves.toBe(FAKE_TX);
  });

  it('refuses to build a service whose value token was not given, and to hand out a mock it does not inject', () => {
    expect(() => newTestService(AccountsService)).toThrow(
      /^newTestService\(AccountsService\): no value given for Symbol\((NATS|PARTNERS_CONFIG)\)$/,
    );
    expect(() => newTestService(LedgerService).mock(KeysRepository)).toThrow('LedgerService does not inject KeysRepository');
  });
});
