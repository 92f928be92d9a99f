import { FAKE_TX as SHARED_FAKE_TX } from '@xchain/service-kit/testing';
import type { Chain, Token } from '@xchain/contracts';
import { type LedgerEntry, Prisma, type Voucher } from '@xchain/partner-service-db';
import type { Tx } from './db.providers';

/* Unit-test fixtures of the partner service; `newTestService` and `mockOf` come from `@xchain/service-kit/testing`. */

/** The transaction handle the faked repositories pass to the service (the shared one, typed): it reaches no database. */
export const FAKE_TX = SHARED_FAKE_TX as Tx;

/** Matches a refusal by its gRPC code and reason (`expect(p).rejects.toMatchObject(refusal(…))`). */
export const refusal = (code: number, reason: string) => ({
  status: expect.objectContaining({ code, details: expect.arrayContaining([expect.objectContaining({ reason })]) }) as unknown,
});

/** A stored ledger entry, as the repository returns it. */
export function ledgerEntry(e: Partial<LedgerEntry> & Pick<LedgerEntry, 'kind' | 'deltaUsdMicros' | 'amountUsdMicros'>): LedgerEntry {
  return {
    id: 1n,
    partnerId: 'ptn_a',
    quoteHash: null,
    reason: '',
    chain: null,
    token: null,
    tokenAmount: null,
    createdAt: new Date(0),
    ...e,
  };
}

/** A stored voucher, as the repository returns it after `create`. */
export function voucherRow(
  v: Omit<Voucher, 'amount' | 'redeemed' | 'redeemTx' | 'redeemedAt' | 'createdAt'> & { amount: string } & Partial<
      Pick<Voucher, 'redeemed' | 'redeemTx' | 'redeemedAt'>
    >,
): Voucher {
  return { redeemed: false, redeemTx: null, redeemedAt: null, createdAt: new Date(0), ...v, amount: new Prisma.Decimal(v.amount) };
}

/** A registry chain (what the quote-engine lists). */
export function chainRef(chain: string, chainId: string, vm: 'evm' | 'svm'): Chain {
  return {
    chain,
    chain_id: chainId,
    vm,
    native_symbol: 'ETH',
    native_decimals: 18,
    enabled: true,
    gasless: false,
    max_gas_drop: '0',
    deposit_target: '',
  };
}

/** A registry token. */
export function tokenRef(chain: string, address: string, symbol: string, decimals: number): Token {
  return { chain, chain_id: '1', address, tier: 'major', symbol, decimals, logo_url: '', permit: false };
}
