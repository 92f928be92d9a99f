import { Inject, Injectable } from '@nestjs/common';
import { RpcError } from '@xchain/contracts';
import { buildFundingCall } from '@xchain/partner-chain';
import { getAddress, type Address } from 'viem';
import { PARTNERS_CONFIG, type PartnersConfig } from '../config';
import { LedgerRepository } from '../ledger/ledger.repository';
import { LedgerService } from '../ledger/ledger.service';
import { RegistryClient } from '../registry-client';
import { Ids } from '@xchain/service-kit';
import { FundingRepository } from './funding.repository';

/**
 * The funding view and funding transactions. Partners top up through the funding router on one
 * chain; each transaction carries a fresh `funding_id` (bytes32) that the router's `Funded` event
 * repeats, which is how a deposit is credited to the partner that built it.
 */
@Injectable()
export class FundingService {
  constructor(
    @Inject(FundingRepository) private readonly repo: FundingRepository,
    @Inject(LedgerRepository) private readonly ledgerRows: LedgerRepository,
    @Inject(PARTNERS_CONFIG) private readonly config: PartnersConfig,
    @Inject(LedgerService) private readonly ledger: LedgerService,
    @Inject(RegistryClient) private readonly registry: RegistryClient,
    @Inject(Ids) private readonly ids: Ids,
  ) {}

  async view(partnerId: string) {
    const { chain, router_address } = this.config.funding;
    const chainInfo = await this.registry.chain(chain);
    const tokens = await this.tokenRefs();
    const balance = await this.ledger.balance(partnerId);
    const rows = await this.ledgerRows.tokenTotals(partnerId, chain);
    const byAddress = new Map(tokens.map((t) => [t.address.toLowerCase(), t]));
    return {
      balance_usd_micros: balance.toString(),
      chain,
      chain_id: chainInfo?.chain_id ?? '0',
      router_address,
      tokens,
      balances: rows.flatMap((r) => {
        const token = byAddress.get(r.token.toLowerCase());
        return token ? [{ token, amount: r.amount, usd_micros: r.usd_micros }] : [];
      }),
    };
  }

  async buildFunding(partnerId: string, tokenAddress: string, amount: string) {
    const { chain, router_address } = this.config.funding;
    const token = (await this.tokenRefs()).find((t) => t.address.toLowerCase() === tokenAddress.toLowerCase());
    if (!token) {
      throw RpcError.invalidArgument(
        [{ field: 'token', description: `is not a funding token on ${chain}; see GET /v1/partner/funding for the list` }],
        'UNSUPPORTED_FUNDING_TOKEN',
      );
    }
    const value = BigInt(amount);
    if (value === 0n) throw RpcError.invalidArgument([{ field: 'amount', description: 'must be positive' }], 'INVALID_AMOUNT');
    const fundingId = this.ids.bytes32();
    const call = buildFundingCall({ fundingId, token: token.address as Address, amount: value });
    await this.repo.createIntent({ id: fundingId, partnerId, chain, token: token.address, amount: amount });
    const chainInfo = await this.registry.chain(chain);
    return {
      funding_id: fundingId,
      chain,
      chain_id: chainInfo?.chain_id ?? '0',
      router_address,
      calldata: call.calldata,
      value: call.value.toString(),
    };
  }

  /** The funding token an operator credit names, checksummed; INVALID_ARGUMENT if it is not one. */
  async fundingToken(address: string): Promise<{ chain: string; token: string }> {
    const token = (await this.tokenRefs()).find((t) => t.address.toLowerCase() === address.toLowerCase());
    if (!token)
      throw RpcError.invalidArgument(
        [{ field: 'token', description: `is not a funding token on ${this.config.funding.chain}` }],
        'UNSUPPORTED_FUNDING_TOKEN',
      );
    return { chain: this.config.funding.chain, token: token.address };
  }

  private async tokenRefs() {
    const { chain, tokens } = this.config.funding;
    const refs = await Promise.all(tokens.map((a) => this.registry.token(chain, a)));
    return refs.flatMap((t) =>
      t ? [{ chain: t.chain, chain_id: t.chain_id, address: getAddress(t.address), symbol: t.symbol, decimals: t.decimals }] : [],
    );
  }
}
