import { Code } from '@xchain/contracts';
import { provideValue } from '@xchain/service-kit';
import type { VoucherRedeemedLog } from '../chain/evm-chain';
import type { PartnersConfig } from '../config';
import { PARTNERS_CONFIG } from '../config';
import { DEV_VOUCHER_SIGNER_KEY } from '../env';
import { RegistryClient } from '../registry-client';
import { newTestService } from '@xchain/service-kit/testing';
import { FAKE_TX, chainRef, refusal, voucherRow } from '../test-support.testing';
import { SolanaRpc } from './solana-rpc';
import { type OpenAccrual, VouchersRepository } from './vouchers.repository';
import { VOUCHER_SIGNER_KEY, VouchersService } from './vouchers.service';

const EVM_ROUTER = '0x1111111111111111111111111111111111111111';
const USDC = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const REF_A = '0x3333333333333333333333333333333333333333';
const REF_B = '0x4444444444444444444444444444444444444444';
const SOL_PROGRAM = 'Vote111111111111111111111111111111111111111';
const SOL_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SOL_REF = 'So11111111111111111111111111111111111111112';

const config: PartnersConfig = {
  tiers: { standard: 60 },
  default_tier: 'standard',
  default_max_keys: 5,
  session_ttl_secs: 3600,
  funding: { chain: 'base', router_address: EVM_ROUTER, tokens: [USDC] },
  voucher_routers: { base: EVM_ROUTER, solana: SOL_PROGRAM },
};

const accrual = (id: number, referrer: string, chain: string, token: string, amount: string): OpenAccrual => ({
  id: BigInt(id),
  referrer,
  chain,
  token,
  token_symbol: 'USDC',
  decimals: 6,
  amount,
});

/** The service over a faked repository holding the partner's open accruals; base (EVM) and solana in the registry. */
function vouchers(open: OpenAccrual[]) {
  const t = newTestService(VouchersService, [
    provideValue(PARTNERS_CONFIG, config),
    provideValue(VOUCHER_SIGNER_KEY, DEV_VOUCHER_SIGNER_KEY),
  ]);
  const repo = t.mock(VouchersRepository);
  repo.lockPartner.mockResolvedValue();
  repo.openAccruals.mockResolvedValue(open);
  repo.create.mockImplementation(async (_tx, v) => voucherRow(v));
  repo.assignAccruals.mockResolvedValue();
  t.mock(RegistryClient).chain.mockImplementation(async (name) =>
    name === 'base' ? chainRef('base', '8453', 'evm') : name === 'solana' ? chainRef('solana', '792703809', 'svm') : undefined,
  );
  t.mock(SolanaRpc).latestBlockhash.mockResolvedValue('11111111111111111111111111111111');
  return { svc: t.sut, repo };
}

describe('VouchersService.issue', () => {
  it('makes one signed voucher per (referrer, chain, token), summing its accruals, and puts exactly those accruals in it', async () => {
    const { svc, repo } = vouchers([
      accrual(1, REF_A, 'base', USDC, '100'),
      accrual(2, REF_A, 'base', USDC, '250'),
      accrual(3, REF_B, 'base', USDC, '7'),
    ]);
    const { vouchers: issued } = await svc.issue('ptn_a');
    expect(issued.map((v) => [v.referrer, v.amount, v.chain_id, v.router_address])).toEqual([
      [REF_A, '350', '8453', EVM_ROUTER],
      [REF_B, '7', '8453', EVM_ROUTER],
    ]);
    expect(
      issued.every((v) => /^0x[0-9a-f]{64}$/.test(v.id) && v.signature.startsWith('0x') && v.calldata.startsWith('0x') && !v.redeemed),
    ).toBe(true);
    expect(new Set(issued.map((v) => v.id)).size).toBe(2);
    expect(repo.assignAccruals.mock.calls).toEqual([
      [FAKE_TX, [1n, 2n], issued[0]!.id],
      [FAKE_TX, [3n], issued[1]!.id],
    ]);
  });

  it('locks the partner before reading its open accruals, all in one transaction', async () => {
    const { svc, repo } = vouchers([accrual(1, REF_A, 'base', USDC, '1')]);
    await svc.issue('ptn_a');
    expect(repo.transaction).toHaveBeenCalledTimes(1);
    expect(repo.lockPartner).toHaveBeenCalledWith(FAKE_TX, 'ptn_a');
    expect(repo.lockPartner.mock.invocationCallOrder[0]).toBeLessThan(repo.openAccruals.mock.invocationCallOrder[0]!);
  });

  it('leaves accruals on a chain with no voucher router waiting', async () => {
    const { svc, repo } = vouchers([accrual(1, REF_A, 'ethereum', USDC, '100')]);
    await expect(svc.issue('ptn_a')).resolves.toEqual({ vouchers: [] });
    expect(repo.create).not.toHaveBeenCalled();
    expect(repo.assignAccruals).not.toHaveBeenCalled();
  });

  it('makes a Solana voucher with no EVM calldata', async () => {
    const { svc } = vouchers([accrual(1, SOL_REF, 'solana', SOL_MINT, '5')]);
    const { vouchers: issued } = await svc.issue('ptn_a');
    expect(issued).toEqual([expect.objectContaining({ chain: 'solana', referrer: SOL_REF, token: SOL_MINT, amount: '5', calldata: '' })]);
  });

  it('refuses a Solana voucher above u64, issuing none', async () => {
    const { svc, repo } = vouchers([
      accrual(1, SOL_REF, 'solana', SOL_MINT, (2n ** 64n - 1n).toString()),
      accrual(2, SOL_REF, 'solana', SOL_MINT, '1'),
    ]);
    await expect(svc.issue('ptn_a')).rejects.toMatchObject(refusal(Code.FAILED_PRECONDITION, 'VOUCHER_TOO_LARGE'));
    expect(repo.create).not.toHaveBeenCalled();
  });
});

describe('VouchersService.markRedeemed', () => {
  const stored = voucherRow({
    id: `0x${'ab'.repeat(32)}`,
    partnerId: 'ptn_a',
    chain: 'base',
    chainId: '8453',
    routerAddress: EVM_ROUTER,
    token: USDC,
    tokenSymbol: 'USDC',
    decimals: 6,
    referrer: REF_A,
    amount: '1',
    signature: '0x',
    calldata: '0x',
  });
  // Hashes and addresses as a node may return them: mixed case.
  const log: VoucherRedeemedLog = {
    voucherId: `0x${'AB'.repeat(32)}`,
    router: `0x${EVM_ROUTER.slice(2).toUpperCase()}`,
    txHash: `0x${'CD'.repeat(32)}`,
    logIndex: 0,
    blockNumber: 1n,
    referrer: `0x${'00'.repeat(32)}`,
    token: `0x${'00'.repeat(32)}`,
    amount: 1n,
  };
  const at = new Date('2026-02-01T00:00:00Z');

  it('marks a voucher it issued redeemed, by that transaction at that block time', async () => {
    const { svc, repo } = vouchers([]);
    repo.byId.mockResolvedValue(stored);
    repo.markRedeemed.mockResolvedValue(true);
    await expect(svc.markRedeemed('base', log, async () => at)).resolves.toBe('redeemed');
    expect(repo.byId).toHaveBeenCalledWith(stored.id);
    expect(repo.markRedeemed).toHaveBeenCalledWith(stored.id, `0x${'cd'.repeat(32)}`, at);
  });

  it('changes nothing for an id it never issued, or an event of another chain or router', async () => {
    const { svc, repo } = vouchers([]);
    repo.byId.mockResolvedValueOnce(null).mockResolvedValue(stored);
    await expect(svc.markRedeemed('base', log, async () => at)).resolves.toBe('unknown');
    await expect(svc.markRedeemed('ethereum', log, async () => at)).resolves.toBe('unknown');
    await expect(svc.markRedeemed('base', { ...log, router: REF_B }, async () => at)).resolves.toBe('unknown');
    expect(repo.markRedeemed).not.toHaveBeenCalled();
  });

  it('is a duplicate when already redeemed, or redeemed meanwhile by another replica', async () => {
    const { svc, repo } = vouchers([]);
    repo.byId.mockResolvedValueOnce({ ...stored, redeemed: true }).mockResolvedValue(stored);
    await expect(svc.markRedeemed('base', log, async () => at)).resolves.toBe('duplicate');
    expect(repo.markRedeemed).not.toHaveBeenCalled();
    repo.markRedeemed.mockResolvedValue(false);
    await expect(svc.markRedeemed('base', log, async () => at)).resolves.toBe('duplicate');
  });
});

describe('VouchersService.buildRedemption', () => {
  const stored = voucherRow({
    id: `0x${'ab'.repeat(32)}`,
    partnerId: 'ptn_a',
    chain: 'base',
    chainId: '8453',
    routerAddress: EVM_ROUTER,
    token: USDC,
    tokenSymbol: 'USDC',
    decimals: 6,
    referrer: REF_A,
    amount: '1',
    signature: '0x',
    calldata: '0xdeadbeef',
  });

  it("answers another partner's voucher like a missing one", async () => {
    const { svc, repo } = vouchers([]);
    repo.owned.mockResolvedValue(null);
    await expect(svc.buildRedemption('ptn_b', stored.id.toUpperCase(), REF_B)).rejects.toMatchObject(
      refusal(Code.NOT_FOUND, 'VOUCHER_NOT_FOUND'),
    );
    expect(repo.owned).toHaveBeenCalledWith('ptn_b', stored.id);
  });

  it('refuses a redeemed voucher', async () => {
    const { svc, repo } = vouchers([]);
    repo.owned.mockResolvedValue({ ...stored, redeemed: true });
    await expect(svc.buildRedemption('ptn_a', stored.id, REF_B)).rejects.toMatchObject(
      refusal(Code.FAILED_PRECONDITION, 'VOUCHER_REDEEMED'),
    );
  });

  it('gives the EVM redeem call, and refuses a payer that is not an address', async () => {
    const { svc, repo } = vouchers([]);
    repo.owned.mockResolvedValue(stored);
    await expect(svc.buildRedemption('ptn_a', stored.id, REF_B)).resolves.toEqual({
      tx_base64: Buffer.from('deadbeef', 'hex').toString('base64'),
    });
    await expect(svc.buildRedemption('ptn_a', stored.id, 'nope')).rejects.toMatchObject(refusal(Code.INVALID_ARGUMENT, 'INVALID_ADDRESS'));
  });
});
