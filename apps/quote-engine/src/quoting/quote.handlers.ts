import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { FetchQuoteRpc, GetQuoteRpc, PreviewQuoteRpc, ValueUsdRpc } from '@xchain/contracts';
import { RpcServer } from '@xchain/messaging';
import { Valuation } from '../prices/valuation';
import { QuoteService } from './quote.service';

@Injectable()
export class QuoteHandlers implements OnModuleInit {
  constructor(
    @Inject(RpcServer) private readonly rpc: RpcServer,
    @Inject(QuoteService) private readonly quotes: QuoteService,
    @Inject(Valuation) private readonly valuation: Valuation,
  ) {}

  onModuleInit(): void {
    this.rpc.handle(PreviewQuoteRpc, (req, ctx) => this.quotes.preview(req, ctx.caller));
    this.rpc.handle(GetQuoteRpc, (req, ctx) => this.quotes.quote(req, ctx.caller));
    this.rpc.handle(FetchQuoteRpc, (req) => this.quotes.fetch(req.quote_hash));
    this.rpc.handle(ValueUsdRpc, async (req) => this.valuation.valueUsd(req.chain, req.token, BigInt(req.amount)));
  }
}
