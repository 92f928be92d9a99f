import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { FetchQuoteRpc, GetQuoteRpc, PreviewQuoteRpc, ValueUsdRpc } from '@xchain/contracts';
import { RpcServer } from '@xchain/messaging';
import { QuoteOutcomes } from '../metrics/quote-outcomes';
import { Valuation } from '../prices/valuation';
import { QuoteService } from './quote.service';

@Injectable()
export class QuoteHandlers implements OnModuleInit {
  constructor(
    @Inject(RpcServer) private readonly rpc: RpcServer,
    @Inject(QuoteService) private readonly quotes: QuoteService,
    @Inject(Valuation) private readonly valuation: Valuation,
    @Inject(QuoteOutcomes) private readonly outcomes: Pick<QuoteOutcomes, 'track'>,
  ) {}

  onModuleInit(): void {
    this.rpc.handle(PreviewQuoteRpc, (req, ctx) => this.outcomes.track('preview', () => this.quotes.preview(req, ctx.caller)));
    this.rpc.handle(GetQuoteRpc, (req, ctx) => this.outcomes.track('quote', () => this.quotes.quote(req, ctx.caller)));
    this.rpc.handle(FetchQuoteRpc, (req) => this.quotes.fetch(req.quote_hash));
    this.rpc.handle(ValueUsdRpc, async (req) => this.valuation.valueUsd(req.chain, req.token, BigInt(req.amount)));
  }
}
