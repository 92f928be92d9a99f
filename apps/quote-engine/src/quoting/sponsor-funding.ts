import { Inject, Injectable } from '@nestjs/common';
import { Code, LedgerBalanceRpc, RpcError, errorInfo } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';

/**
 * `sponsor_fees` needs a funded partner: one whose available sponsorship balance covers the relay
 * gas of this quote. The partner-service owns the ledger; the hold itself is taken at relay time.
 */
@Injectable()
export class SponsorFunding {
  constructor(@Inject(RpcClient) private readonly rpc: RpcClient) {}

  async assertCovers(partnerId: string, requiredUsdMicros: bigint): Promise<void> {
    const { balance_usd_micros } = await this.rpc.call(
      LedgerBalanceRpc,
      { partner_id: partnerId },
      { caller: { kind: 'internal', service: 'quote-engine' } },
    );
    const balance = BigInt(balance_usd_micros);
    if (balance === 0n || balance < requiredUsdMicros) {
      throw new RpcError(Code.FAILED_PRECONDITION, 'the partner funding balance does not cover the relay gas of this quote', [
        errorInfo('SPONSOR_BALANCE_INSUFFICIENT', {
          balance_usd_micros: balance.toString(),
          required_usd_micros: requiredUsdMicros.toString(),
        }),
      ]);
    }
  }
}
