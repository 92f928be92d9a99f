import { Controller, Inject } from '@nestjs/common';
import { FetchQuoteRpc, GetQuoteRpc, PreviewQuoteRpc, ValueUsdRpc } from '@xchain/contracts';
import { Rpc, type RpcBody, type RpcCtx } from '@xchain/messaging';
import { QuoteOutcomes } from './quote-outcomes';
import { Valuation } from '../prices/valuation';
import { QuoteService } from './quote.service';

/** The quoting operations on the bus (the gateway's `/v1/quote*`, and USD values for other services). */
@Controller()
export class QuoteHandlers {
  constructor(
    @Inject(QuoteService) private readonly quotes: QuoteService,
    @Inject(Valuation) private readonly valuation: Valuation,
    @Inject(QuoteOutcomes) private readonly outcomes: Pick<QuoteOutcomes, 'track'>,
  ) {}

  @Rpc(PreviewQuoteRpc)
  preview(req: RpcBody<typeof PreviewQuoteRpc>, ctx: RpcCtx<typeof PreviewQuoteRpc>) {
    return this.outcomes.track('preview', () => this.quotes.preview(req, ctx.caller));
  }

  @Rpc(GetQuoteRpc)
  quote(req: RpcBody<typeof GetQuoteRpc>, ctx: RpcCtx<typeof GetQuoteRpc>) {
    return this.outcomes.track('quote', () => this.quotes.quote(req, ctx.caller));
  }

  @Rpc(FetchQuoteRpc)
  fetch(req: RpcBody<typeof FetchQuoteRpc>) {
    return this.quotes.fetch(req.quote_hash);
  }

  @Rpc(ValueUsdRpc)
  valueUsd(req: RpcBody<typeof ValueUsdRpc>) {
    return this.valuation.valueUsd(req.chain, req.token, BigInt(req.amount));
  }
}
