import type { FundingDeposit as FundingDepositView } from '@xchain/contracts';
import type { FundingDeposit } from './funding.repository';

/** A funding deposit on the wire: the operator's listing, and (through `partnerDepositView`) a partner's ledger. */
export function depositView(d: FundingDeposit, email: string | undefined): FundingDepositView {
  return {
    id: String(d.id),
    chain: d.chain,
    tx_hash: d.txHash,
    log_index: d.logIndex,
    block_number: String(d.blockNumber),
    funding_id: d.fundingId,
    token: d.token,
    payer: d.payer,
    amount: d.amount.toFixed(0),
    status: d.status as FundingDepositView['status'],
    ...(d.detail ? { detail: d.detail } : {}),
    ...(email ? { email } : {}),
    ...(d.usdMicros !== null ? { usd_micros: String(d.usdMicros) } : {}),
    ...(d.priceE18 !== null ? { price_e18: d.priceE18.toFixed(0) } : {}),
    ...(d.pricePublishTime !== null ? { price_publish_time: d.pricePublishTime } : {}),
    ...(d.ledgerEntryId !== null ? { ledger_entry_id: String(d.ledgerEntryId) } : {}),
    created_at: d.createdAt.toISOString(),
  };
}

/**
 * What a partner sees of a deposit behind one of its credits: the operator's view without the
 * operator's bookkeeping (status, detail, email, ids the entry already gives, the credited value
 * that is the entry's own amount).
 */
export function partnerDepositView(d: FundingDeposit) {
  const {
    id: _id,
    status: _status,
    detail: _detail,
    email: _email,
    ledger_entry_id: _entry,
    usd_micros: _usd,
    created_at: _at,
    ...rest
  } = depositView(d, undefined);
  return rest;
}
