import { Code, type OrderEvent } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import { toBytes32 } from '@xchain/order-codec';
import { Prisma } from '@xchain/partner-service-db';
import { RegistryClient } from '../registry-client';
import { newTestService } from '@xchain/service-kit/testing';
import { FAKE_TX, chainRef, refusal, tokenRef } from '../test-support.testing';
import { encodeCursor } from './cursor';
import { type AccrualGroup, ReferralsRepository } from './referrals.repository';
import { ReferralsService } from './referrals.service';

const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const REF_A = '0x3333333333333333333333333333333333333333';
const REF_B = '0x4444444444444444444444444444444444444444';
const QH = `0x${'11'.repeat(32)}`;

/** The stored quote: 1000.000001 USDC in on chain 1, referrers A (10 bps), B (5 bps) and C (0 bps). */
const storedQuote = (partnerId: string | undefined) => ({
  quote_hash: QH,
  ...(partnerId ? { partner_id: partnerId } : {}),
  quote: {
    cross_chain: {
      order: {
        src_chain_id: '1',
        src_token: toBytes32('evm', USDC),
        amount_in: '1000000001',
        referrers: [
          { account: toBytes32('evm', REF_A), bps: '10' },
          { account: toBytes32('evm', REF_B), bps: '5' },
          { account: toBytes32('evm', REF_B), bps: '0' },
        ],
      },
    },
  },
});

const fill = (over: Partial<OrderEvent> = {}): OrderEvent => ({
  type: 'fulfilled',
  quote_hash: QH,
  chain: 'arbitrum',
  tx_hash: `0x${'22'.repeat(32)}`,
  log_index: 2,
  block_hash: `0x${'aa'.repeat(32)}`,
  occurred_at: '2026-11-23T12:00:00Z',
  ...over,
});

function referrals() {
  const t = newTestService(ReferralsService);
  const repo = t.mock(ReferralsRepository);
  repo.lockOrder.mockResolvedValue();
  repo.withdrawals.mockResolvedValue([]);
  repo.insertAccruals.mockImplementation(async (_tx, rows) => rows.length);
  repo.moveAccruals.mockResolvedValue();
  repo.recordWithdrawal.mockResolvedValue(undefined);
  t.mock(RpcClient).call.mockResolvedValue(storedQuote('ptn_a') as never);
  t.mock(RegistryClient).chainById.mockResolvedValue(chainRef('ethereum', '1', 'evm'));
  t.mock(RegistryClient).token.mockResolvedValue(tokenRef('ethereum', USDC, 'USDC', 6));
  return { svc: t.sut, repo, rpc: t.mock(RpcClient), registry: t.mock(RegistryClient) };
}

describe('ReferralsService.accrue', () => {
  it('credits each referrer its bps of the deposit, floored, to the partner of the quote; a zero share is no accrual', async () => {
    const { svc, repo } = referrals();
    await expect(svc.accrue(fill())).resolves.toBe('accrued');
    const step = {
      fulfilChain: 'arbitrum',
      fulfilTxHash: `0x${'22'.repeat(32)}`,
      fulfilLogIndex: 2,
      fulfilBlockHash: `0x${'aa'.repeat(32)}`,
    };
    const row = {
      partnerId: 'ptn_a',
      quoteHash: QH,
      chain: 'ethereum',
      chainId: '1',
      token: USDC,
      tokenSymbol: 'USDC',
      decimals: 6,
      ...step,
    };
    expect(repo.insertAccruals).toHaveBeenCalledWith(FAKE_TX, [
      { ...row, referrer: REF_A, amount: '1000000' },
      { ...row, referrer: REF_B, amount: '500000' },
    ]);
    expect(repo.lockOrder).toHaveBeenCalledWith(FAKE_TX, QH);
    expect(repo.lockOrder.mock.invocationCallOrder[0]).toBeLessThan(repo.insertAccruals.mock.invocationCallOrder[0]!);
  });

  it('accrues nothing twice: a redelivered fulfilment moves the accruals onto its step', async () => {
    const { svc, repo } = referrals();
    repo.insertAccruals.mockResolvedValue(0);
    await expect(svc.accrue(fill({ block_hash: `0x${'bb'.repeat(32)}` }))).resolves.toBe('already_accrued');
    expect(repo.moveAccruals).toHaveBeenCalledWith(FAKE_TX, QH, expect.objectContaining({ fulfilBlockHash: `0x${'bb'.repeat(32)}` }));
  });

  it('accrues nothing for a keyless quote', async () => {
    const { svc, repo, rpc } = referrals();
    rpc.call.mockResolvedValue(storedQuote(undefined) as never);
    await expect(svc.accrue(fill())).resolves.toBe('no_partner');
    expect(repo.transaction).not.toHaveBeenCalled();
  });

  it('accrues nothing for a fulfilment a reorg withdrew, checked again under the order lock', async () => {
    const withdrawn = {
      id: 1n,
      quoteHash: QH,
      chain: 'arbitrum',
      txHash: `0x${'22'.repeat(32)}`,
      logIndex: 2,
      blockHash: `0x${'aa'.repeat(32)}`,
      reversed: 0,
      kept: 0,
      createdAt: new Date(0),
    };
    const before = referrals();
    before.repo.withdrawals.mockResolvedValue([withdrawn]);
    await expect(before.svc.accrue(fill())).resolves.toBe('withdrawn');
    expect(before.rpc.call).not.toHaveBeenCalled();

    const meanwhile = referrals();
    meanwhile.repo.withdrawals.mockResolvedValueOnce([]).mockResolvedValue([withdrawn]);
    await expect(meanwhile.svc.accrue(fill())).resolves.toBe('withdrawn');
    expect(meanwhile.repo.withdrawals).toHaveBeenLastCalledWith(QH, FAKE_TX);
    expect(meanwhile.repo.insertAccruals).not.toHaveBeenCalled();
  });

  it('is UNAVAILABLE when the source chain is not in the registry', async () => {
    const { svc, repo, registry } = referrals();
    registry.chainById.mockResolvedValue(undefined);
    await expect(svc.accrue(fill())).rejects.toMatchObject(refusal(Code.UNAVAILABLE, 'UNKNOWN_CHAIN'));
    expect(repo.transaction).not.toHaveBeenCalled();
  });
});

describe('ReferralsService.withdraw', () => {
  const accrualRow = (id: number, over: { voucherId?: string | null; fulfilTxHash?: string | null; fulfilBlockHash?: string | null }) => ({
    id: BigInt(id),
    partnerId: 'ptn_a',
    quoteHash: QH,
    referrer: REF_A,
    chain: 'ethereum',
    chainId: '1',
    token: USDC,
    tokenSymbol: 'USDC',
    decimals: 6,
    amount: new Prisma.Decimal(1),
    voucherId: null,
    fulfilChain: 'arbitrum',
    fulfilTxHash: `0x${'22'.repeat(32)}`,
    fulfilLogIndex: 2,
    fulfilBlockHash: `0x${'aa'.repeat(32)}`,
    createdAt: new Date(0),
    ...over,
  });

  it("removes the withdrawn step's open accruals, keeps vouchered ones and leaves other steps' alone, and records it", async () => {
    const { svc, repo } = referrals();
    repo.accrualsOfOrder.mockResolvedValue([
      accrualRow(1, {}),
      accrualRow(2, { voucherId: '0xv' }),
      accrualRow(3, { fulfilBlockHash: `0x${'bb'.repeat(32)}` }),
      accrualRow(4, { fulfilTxHash: null }),
    ]);
    repo.deleteOpenAccruals.mockResolvedValue(2);
    await expect(svc.withdraw(fill({ removed: true }))).resolves.toEqual({ reversed: 2, kept: 1, other: 1, repeated: false });
    expect(repo.deleteOpenAccruals).toHaveBeenCalledWith(FAKE_TX, [1n, 4n]);
    expect(repo.recordWithdrawal).toHaveBeenCalledWith(FAKE_TX, expect.objectContaining({ quoteHash: QH, reversed: 2, kept: 1 }));
  });

  it('counts an accrual a voucher took meanwhile as kept', async () => {
    const { svc, repo } = referrals();
    repo.accrualsOfOrder.mockResolvedValue([accrualRow(1, {}), accrualRow(2, {})]);
    repo.deleteOpenAccruals.mockResolvedValue(1);
    await expect(svc.withdraw(fill({ removed: true }))).resolves.toMatchObject({ reversed: 1, kept: 1 });
  });

  it('handles a redelivered withdrawal once', async () => {
    const { svc, repo } = referrals();
    repo.withdrawals.mockResolvedValue([
      {
        id: 1n,
        quoteHash: QH,
        chain: 'arbitrum',
        txHash: `0x${'22'.repeat(32)}`,
        logIndex: 2,
        blockHash: `0x${'aa'.repeat(32)}`,
        reversed: 1,
        kept: 0,
        createdAt: new Date(0),
      },
    ]);
    await expect(svc.withdraw(fill({ removed: true }))).resolves.toEqual({ reversed: 0, kept: 0, other: 0, repeated: true });
    expect(repo.deleteOpenAccruals).not.toHaveBeenCalled();
    expect(repo.recordWithdrawal).not.toHaveBeenCalled();
  });
});

describe('ReferralsService.groups', () => {
  const group = (referrer: string, token = USDC): AccrualGroup => ({
    referrer,
    chain: 'ethereum',
    chain_id: '1',
    token,
    token_symbol: 'USDC',
    decimals: 6,
    amount: '10',
    count: '2',
  });

  it('asks one row more than the page, and gives a cursor after the last group shown when there is more', async () => {
    const { svc, repo } = referrals();
    repo.groups.mockResolvedValue([group(REF_A), group(REF_B), group(REF_B, '0x5')]);
    const page = await svc.groups('ptn_a', undefined, 2);
    expect(repo.groups).toHaveBeenCalledWith('ptn_a', undefined, 3);
    expect(page.groups.map((g) => g.referrer)).toEqual([REF_A, REF_B]);
    expect(page.next_cursor).toBe(encodeCursor({ referrer: REF_B, chain: 'ethereum', token: USDC }));
  });

  it('ends with an empty cursor on a last page that is full, and reads from the position a cursor names', async () => {
    const { svc, repo } = referrals();
    repo.groups.mockResolvedValue([group(REF_B), group(REF_B, '0x5')]);
    const after = { referrer: REF_A, chain: 'ethereum', token: USDC };
    await expect(svc.groups('ptn_a', encodeCursor(after), 2)).resolves.toEqual({
      groups: [group(REF_B), group(REF_B, '0x5')],
      next_cursor: '',
    });
    expect(repo.groups).toHaveBeenCalledWith('ptn_a', after, 3);
  });

  it('refuses a cursor it did not make, and a page size of 0, before any query', async () => {
    const { svc, repo } = referrals();
    await expect(svc.groups('ptn_a', 'bm9wZQ', 2)).rejects.toMatchObject(refusal(Code.INVALID_ARGUMENT, 'INVALID_CURSOR'));
    await expect(svc.groups('ptn_a', undefined, 0)).rejects.toMatchObject(refusal(Code.INVALID_ARGUMENT, 'INVALID_PAGE_SIZE'));
    expect(repo.groups).not.toHaveBeenCalled();
  });
});
