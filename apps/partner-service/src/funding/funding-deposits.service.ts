import { Inject, Injectable } from '@nestjs/common';
import { Code, RpcError, ValueUsdRpc, type FundingDeposit as FundingDepositView } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import { UniqueViolation } from '../db.providers';
import { LedgerService } from '../ledger/ledger.service';
import type { FundedLog } from '../chain/evm-chain';
import { depositView } from './deposit-view';
import { FundingRepository, type NewFundingDeposit } from './funding.repository';
import { FundingService } from './funding.service';

export type DepositOutcome = 'credited' | 'unmatched' | 'duplicate';

const PERMANENT = new Set<number>([Code.INVALID_ARGUMENT, Code.NOT_FOUND, Code.FAILED_PRECONDITION]);

/**
 * Turns a `Funded` event into a ledger credit for the partner whose funding id it carries, valued
 * at the current oracle price and floored to the micro (in the operator's favour). Each event
 * (chain, tx, log index) is recorded once: the record and the credit share one transaction, and a
 * unique index makes a second attempt, by a rescan or another replica, a no-op.
 */
@Injectable()
export class FundingDepositsService {
  constructor(
    @Inject(FundingRepository) private readonly repo: FundingRepository,
    @Inject(LedgerService) private readonly ledger: Pick<LedgerService, 'adjust'>,
    @Inject(FundingService) private readonly funding: Pick<FundingService, 'fundingToken'>,
    @Inject(RpcClient) private readonly rpc: Pick<RpcClient, 'call'>,
  ) {}

  /** Throws (and records nothing) when the deposit cannot be valued yet; the watcher retries it. */
  async record(chain: string, log: FundedLog): Promise<DepositOutcome> {
    const base = {
      chain,
      txHash: log.txHash.toLowerCase(),
      logIndex: log.logIndex,
      blockNumber: log.blockNumber,
      fundingId: log.fundingId.toLowerCase(),
      token: log.token,
      payer: log.payer,
      amount: log.amount.toString(),
    };
    const seen = await this.repo.depositAt(chain, base.txHash, base.logIndex);
    if (seen) return 'duplicate';

    const intent = await this.repo.intent(base.fundingId);
    if (!intent) return this.insertUnmatched({ ...base, partnerId: null }, 'no funding transaction was built with this funding id');
    const accepted = await this.funding.fundingToken(log.token).then(
      () => true,
      (err: unknown) => (err instanceof RpcError ? false : Promise.reject(err)),
    );
    const problem =
      intent.chain !== chain
        ? `the funding id was issued for ${intent.chain}`
        : !accepted
          ? 'the token is not a funding token'
          : log.amount === 0n
            ? 'the amount is zero'
            : undefined;
    if (problem) return this.insertUnmatched({ ...base, partnerId: intent.partnerId }, problem);

    let value;
    try {
      value = await this.rpc.call(ValueUsdRpc, { chain, token: log.token, amount: base.amount });
    } catch (err) {
      // No fresh price, or the quote-engine away: retried on the next pass. A refusal that no retry
      // can change (the token is not in the registry) must not hold up every later deposit.
      if (err instanceof RpcError && PERMANENT.has(err.status.code)) {
        return this.insertUnmatched({ ...base, partnerId: intent.partnerId }, `cannot be valued: ${err.status.message}`);
      }
      throw err;
    }
    const usdMicros = BigInt(value.usd_micros);
    const priced = { usdMicros, priceE18: value.price_e18, pricePublishTime: value.publish_time };
    if (usdMicros === 0n) return this.insertUnmatched({ ...base, ...priced, partnerId: intent.partnerId }, 'worth less than one USD micro');
    try {
      await this.ledger.adjust(
        {
          partnerId: intent.partnerId,
          direction: 'credit',
          usdMicros,
          reason: `funding deposit ${base.txHash}:${base.logIndex}`,
          chain,
          token: log.token,
          tokenAmount: log.amount,
        },
        async (tx, entryId) => {
          await this.repo.insertDeposit(
            { ...base, ...priced, status: 'credited', partnerId: intent.partnerId, ledgerEntryId: entryId },
            tx,
          );
        },
      );
      return 'credited';
    } catch (err) {
      if (err instanceof UniqueViolation) return 'duplicate';
      throw err;
    }
  }

  async list(filter: { partnerId?: string; status?: 'credited' | 'unmatched'; limit: number }): Promise<FundingDepositView[]> {
    const rows = await this.repo.deposits(filter);
    return rows.map((d) => depositView(d, d.partner?.email));
  }

  private async insertUnmatched(data: Omit<NewFundingDeposit, 'status' | 'detail'>, detail: string): Promise<DepositOutcome> {
    try {
      await this.repo.insertDeposit({ ...data, status: 'unmatched', detail });
      return 'unmatched';
    } catch (err) {
      if (err instanceof UniqueViolation) return 'duplicate';
      throw err;
    }
  }
}
