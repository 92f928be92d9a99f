import { RpcError } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import { type FundingDeposit, Prisma } from '@xchain/partner-service-db';
import { type Address, pad, zeroAddress } from 'viem';
import type { FundedLog } from '../chain/evm-chain';
import { LedgerService } from '../ledger/ledger.service';
import { newTestService } from '@xchain/service-kit/testing';
import { FAKE_TX } from '../test-support.testing';
import { FundingDepositsService } from './funding-deposits.service';
import { FundingRepository, type NewFundingDeposit } from './funding.repository';
import { FundingService } from './funding.service';

const FUNDING_ID = pad('0xf1');
const log: FundedLog = {
  txHash: pad('0xaa'),
  logIndex: 3,
  blockNumber: 10n,
  fundingId: FUNDING_ID,
  token: zeroAddress,
  payer: zeroAddress as Address,
  amount: 10n ** 15n,
};

/** What the table holds once the event is recorded. */
const recorded: FundingDeposit = {
  id: 1n,
  chain: 'base',
  txHash: log.txHash,
  logIndex: log.logIndex,
  blockNumber: log.blockNumber,
  fundingId: FUNDING_ID,
  token: log.token,
  payer: log.payer,
  amount: new Prisma.Decimal(log.amount.toString()),
  status: 'credited',
  detail: null,
  partnerId: 'ptn_a',
  usdMicros: null,
  priceE18: null,
  pricePublishTime: null,
  ledgerEntryId: 7n,
  createdAt: new Date(0),
};

/** The service over in-memory stand-ins for its table, the ledger and the quote-engine's valuation. */
function service(value: () => Promise<unknown>) {
  const rows: NewFundingDeposit[] = [];
  const credits: unknown[] = [];
  const t = newTestService(FundingDepositsService);
  const repo = t.mock(FundingRepository);
  repo.depositAt.mockImplementation(async () => (rows[0] ? recorded : null));
  repo.insertDeposit.mockImplementation(async (data) => void rows.push(data));
  repo.intent.mockImplementation(async (id) => (id === FUNDING_ID ? { partnerId: 'ptn_a', chain: 'base' } : null));
  t.mock(LedgerService).adjust.mockImplementation(async (a, within) => {
    credits.push(a);
    await within?.(FAKE_TX, 7n);
    return { id: '7', kind: 'credit', delta_usd_micros: '0', balance_usd_micros: '0', reason: '', created_at: '' };
  });
  t.mock(FundingService).fundingToken.mockResolvedValue({ chain: 'base', token: zeroAddress });
  t.mock(RpcClient).call.mockImplementation(value as never);
  return { svc: t.sut, rows, credits };
}

describe('FundingDepositsService.record', () => {
  it('credits the value the quote-engine gives and records the price with the deposit', async () => {
    const { svc, rows, credits } = service(async () => ({
      usd_micros: '3000000',
      price_e18: '3000000000000000000000',
      decimals: 18,
      price_id: 'eth',
      publish_time: 1,
    }));
    await expect(svc.record('base', log)).resolves.toBe('credited');
    expect(credits).toEqual([
      expect.objectContaining({ partnerId: 'ptn_a', direction: 'credit', usdMicros: 3_000_000n, tokenAmount: 10n ** 15n }),
    ]);
    expect(rows).toEqual([
      expect.objectContaining({ status: 'credited', ledgerEntryId: 7n, usdMicros: 3_000_000n, priceE18: '3000000000000000000000' }),
    ]);
    // the same event again: nothing more
    await expect(svc.record('base', log)).resolves.toBe('duplicate');
    expect(credits).toHaveLength(1);
  });

  it('leaves a deposit with no fresh price unrecorded, so the watcher retries it', async () => {
    const { svc, rows, credits } = service(async () => {
      throw RpcError.unavailable('price of eth is 90s old', 'STALE_PRICE');
    });
    await expect(svc.record('base', log)).rejects.toThrow('90s old');
    expect([rows, credits]).toEqual([[], []]);
  });

  it('sets aside a deposit that can never be valued, instead of holding up every later one', async () => {
    const { svc, rows, credits } = service(async () => {
      throw RpcError.notFound('0x0 is not a listed token on base', 'TOKEN_NOT_FOUND');
    });
    await expect(svc.record('base', log)).resolves.toBe('unmatched');
    expect(credits).toEqual([]);
    expect(rows).toEqual([
      expect.objectContaining({ status: 'unmatched', partnerId: 'ptn_a', detail: 'cannot be valued: 0x0 is not a listed token on base' }),
    ]);
  });

  it('credits nobody for a funding id it never issued', async () => {
    const { svc, rows, credits } = service(async () => {
      throw new Error('not asked');
    });
    await expect(svc.record('base', { ...log, fundingId: pad('0xbb') })).resolves.toBe('unmatched');
    expect(credits).toEqual([]);
    expect(rows).toEqual([
      expect.objectContaining({ status: 'unmatched', partnerId: null, detail: 'no funding transaction was built with this funding id' }),
    ]);
  });
});
