import { Code } from '@xchain/contracts';
import { Prisma } from '@xchain/partner-service-db';
import { newTestService } from '@xchain/service-kit/testing';
import { FAKE_TX, ledgerEntry, refusal } from '../test-support.testing';
import { LedgerRepository, type NewLedgerEntry } from './ledger.repository';
import { LedgerService } from './ledger.service';

const QUOTE = '0xAB';
const row = (e: NewLedgerEntry, id: number) =>
  ledgerEntry({
    ...e,
    id: BigInt(id),
    quoteHash: e.quoteHash ?? null,
    tokenAmount: e.tokenAmount == null ? null : new Prisma.Decimal(e.tokenAmount),
  });
const qh = '0xab';

/** The service over a faked repository holding one partner's balance and one quote's entries. */
function ledger(balance: bigint, entries: NewLedgerEntry[] = []) {
  const t = newTestService(LedgerService);
  const repo = t.mock(LedgerRepository);
  const stored = entries.map((e, i) => row(e, i + 1));
  repo.lockPartner.mockResolvedValue();
  repo.balance.mockImplementation(async () => balance);
  repo.entriesOfQuote.mockImplementation(async () => stored);
  repo.holdOf.mockImplementation(async () => stored.find((e) => e.kind === 'hold') ?? null);
  repo.insert.mockImplementation(async (_tx, e) => {
    balance += e.deltaUsdMicros;
    const created = row(e, stored.length + 1);
    stored.push(created);
    return created;
  });
  return { svc: t.sut, repo, stored };
}

const held = (amount: bigint, partnerId = 'ptn_a'): NewLedgerEntry => ({
  partnerId,
  kind: 'hold',
  deltaUsdMicros: -amount,
  amountUsdMicros: amount,
  quoteHash: qh,
  reason: 'relay gas reserved',
});

describe('LedgerService.hold', () => {
  it('refuses a hold larger than the balance, and writes nothing', async () => {
    const { svc, repo } = ledger(999n);
    await expect(svc.hold('ptn_a', QUOTE, 1000n)).rejects.toMatchObject(refusal(Code.FAILED_PRECONDITION, 'INSUFFICIENT_FUNDING'));
    expect(repo.insert).not.toHaveBeenCalled();
  });

  it('reserves the amount under the partner lock, in lower case, and answers the balance left', async () => {
    const { svc, repo } = ledger(1000n);
    await expect(svc.hold('ptn_a', QUOTE, 1000n)).resolves.toEqual({
      quote_hash: qh,
      partner_id: 'ptn_a',
      status: 'held',
      held_usd_micros: '1000',
      balance_usd_micros: '0',
    });
    expect(repo.lockPartner).toHaveBeenCalledWith(FAKE_TX, 'ptn_a');
    expect(repo.lockPartner.mock.invocationCallOrder[0]).toBeLessThan(repo.balance.mock.invocationCallOrder[0]!);
    expect(repo.insert).toHaveBeenCalledWith(FAKE_TX, held(1000n));
  });

  it('answers a repeated hold with the existing one, reserving nothing more', async () => {
    const { svc, repo } = ledger(500n, [held(300n)]);
    await expect(svc.hold('ptn_a', QUOTE, 300n)).resolves.toMatchObject({
      status: 'held',
      held_usd_micros: '300',
      balance_usd_micros: '500',
    });
    expect(repo.insert).not.toHaveBeenCalled();
  });

  it('refuses to hold a quote already held for another partner', async () => {
    const { svc, repo } = ledger(500n, [held(300n, 'ptn_b')]);
    await expect(svc.hold('ptn_a', QUOTE, 300n)).rejects.toMatchObject(refusal(Code.FAILED_PRECONDITION, 'HOLD_CONFLICT'));
    expect(repo.insert).not.toHaveBeenCalled();
  });
});

describe('LedgerService.settle and release', () => {
  it('charges the actual cost and returns the rest of the hold', async () => {
    const { svc, repo } = ledger(0n, [held(1000n)]);
    await expect(svc.settle(QUOTE, 400n)).resolves.toEqual({
      quote_hash: qh,
      partner_id: 'ptn_a',
      status: 'settled',
      held_usd_micros: '1000',
      charged_usd_micros: '400',
      balance_usd_micros: '600',
    });
    expect(repo.insert).toHaveBeenCalledWith(FAKE_TX, {
      partnerId: 'ptn_a',
      kind: 'settle',
      deltaUsdMicros: 600n,
      amountUsdMicros: 400n,
      quoteHash: qh,
      reason: 'relay gas charged',
    });
  });

  it('charges at most the amount held', async () => {
    const { svc, repo } = ledger(0n, [held(1000n)]);
    await expect(svc.settle(QUOTE, 5000n)).resolves.toMatchObject({ charged_usd_micros: '1000', balance_usd_micros: '0' });
    expect(repo.insert).toHaveBeenCalledWith(FAKE_TX, expect.objectContaining({ deltaUsdMicros: 0n, amountUsdMicros: 1000n }));
  });

  it('settling twice charges once', async () => {
    const { svc, repo } = ledger(0n, [held(1000n)]);
    await svc.settle(QUOTE, 400n);
    await expect(svc.settle(QUOTE, 900n)).resolves.toMatchObject({
      status: 'settled',
      charged_usd_micros: '400',
      balance_usd_micros: '600',
    });
    expect(repo.insert).toHaveBeenCalledTimes(1);
  });

  it('releases the whole hold, and releasing twice credits it once', async () => {
    const { svc, repo } = ledger(0n, [held(1000n)]);
    await expect(svc.release(QUOTE)).resolves.toMatchObject({ status: 'released', balance_usd_micros: '1000' });
    await expect(svc.release(QUOTE)).resolves.toMatchObject({ status: 'released', balance_usd_micros: '1000' });
    expect(repo.insert).toHaveBeenCalledTimes(1);
    expect(repo.insert).toHaveBeenCalledWith(
      FAKE_TX,
      expect.objectContaining({ kind: 'release', deltaUsdMicros: 1000n, amountUsdMicros: 1000n }),
    );
  });

  it('refuses to release a settled hold, and to settle a released one', async () => {
    const settled = ledger(0n, [held(1000n)]);
    await settled.svc.settle(QUOTE, 10n);
    await expect(settled.svc.release(QUOTE)).rejects.toMatchObject(refusal(Code.FAILED_PRECONDITION, 'HOLD_SETTLED'));
    const released = ledger(0n, [held(1000n)]);
    await released.svc.release(QUOTE);
    await expect(released.svc.settle(QUOTE, 10n)).rejects.toMatchObject(refusal(Code.FAILED_PRECONDITION, 'HOLD_RELEASED'));
    expect([settled.repo.insert.mock.calls.length, released.repo.insert.mock.calls.length]).toEqual([1, 1]);
  });

  it('is NOT_FOUND for a quote with no hold', async () => {
    const { svc, repo } = ledger(0n);
    await expect(svc.settle(QUOTE, 1n)).rejects.toMatchObject(refusal(Code.NOT_FOUND, 'HOLD_NOT_FOUND'));
    expect(repo.transaction).not.toHaveBeenCalled();
  });
});

describe('LedgerService.adjust', () => {
  it('refuses a debit above the balance', async () => {
    const { svc, repo } = ledger(10n);
    await expect(svc.adjust({ partnerId: 'ptn_a', direction: 'debit', usdMicros: 11n, reason: 'r' })).rejects.toMatchObject(
      refusal(Code.FAILED_PRECONDITION, 'INSUFFICIENT_FUNDING'),
    );
    expect(repo.insert).not.toHaveBeenCalled();
  });

  it('refuses a zero amount before touching the ledger', async () => {
    const { svc, repo } = ledger(10n);
    await expect(svc.adjust({ partnerId: 'ptn_a', direction: 'credit', usdMicros: 0n, reason: 'r' })).rejects.toMatchObject({
      status: expect.objectContaining({ code: Code.INVALID_ARGUMENT }),
    });
    expect(repo.transaction).not.toHaveBeenCalled();
  });

  it('writes a credit and runs the caller’s write in the same transaction, with the entry id', async () => {
    const { svc, repo } = ledger(10n);
    const within = jest.fn(async () => undefined);
    await expect(
      svc.adjust(
        { partnerId: 'ptn_a', direction: 'credit', usdMicros: 5n, reason: 'top-up', chain: 'base', token: '0xT', tokenAmount: 7n },
        within,
      ),
    ).resolves.toMatchObject({
      id: '1',
      kind: 'credit',
      delta_usd_micros: '5',
      balance_usd_micros: '15',
    });
    expect(repo.insert).toHaveBeenCalledWith(FAKE_TX, {
      partnerId: 'ptn_a',
      kind: 'credit',
      deltaUsdMicros: 5n,
      amountUsdMicros: 5n,
      reason: 'top-up',
      chain: 'base',
      token: '0xT',
      tokenAmount: '7',
    });
    expect(within).toHaveBeenCalledWith(FAKE_TX, 1n);
  });
});
