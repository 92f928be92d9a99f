import { Inject, Injectable } from '@nestjs/common';
import {
  RpcError,
  type CallerContext,
  type GetQuoteRequest,
  type PreviewQuoteRequest,
  type Quote,
  type QuotePreview,
  type StoredQuote,
} from '@xchain/contracts';
import { destinationCallSalt, permit2NonceFrom } from '@xchain/evm-gasless';
import { encodeOrder, hashOrder, hashReferrers, orderToWire, toBytes32, type Order } from '@xchain/order-codec';
import { DependencyOutages, chainRpcDependency, chainRpcFailure } from '@xchain/messaging';
import { Clock, LOGGER } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { BaseError, getAddress } from 'viem';
import { QuoteRepository } from './quote.repository';
import { EtaService } from '../eta/eta.service';
import { normaliseAddress } from '../registry/addresses';
import { type EvmDepositFields, evmDepositFields } from './evm-deposit-fields';
import { EXECUTABILITY, type Executability } from './executability';
import { TOKEN_PERMIT_READER, type TokenPermit, type TokenPermitReader } from './permit-reader';
import { invalid } from './quote-errors';
import { QuotePipeline, type PricedRequest } from './quote-pipeline';
import { RANDOM_WORD, type RandomWord } from './quote-random';
import { SVM_BLOCKHASH, type BlockhashSource } from './svm-blockhash';
import { DESTINATION_CALLS, DestinationCalls, type PreparedCall } from './destination-calls';
import { svmDepositFieldsFrom } from './svm-deposit-fields';
import { QuoteWriter } from './quote-writer';
import { pricedFields, rfc3339 } from './quote-wire';
import { responseForStorage, storedResponse } from './stored-response';
import { QUOTE_RETENTION_SECS } from '../config.tokens';

const TRADE_TYPE_NUMBER = {
  TRADE_TYPE_EXACT_INPUT: 1,
  TRADE_TYPE_EXPECTED_OUTPUT: 2,
  TRADE_TYPE_EXACT_INPUT_GUARANTEED_OUTPUT: 3,
  TRADE_TYPE_EXACT_OUTPUT: 4,
} as const;
const EXPIRY_SECS = 30 * 60;

/** PreviewQuote, GetQuote (bind, hash, store) and stored-quote lookups. */
@Injectable()
export class QuoteService {
  constructor(
    @Inject(QuotePipeline) private readonly pipeline: QuotePipeline,
    @Inject(EtaService) private readonly eta: EtaService,
    @Inject(QuoteRepository) private readonly quotes: QuoteRepository,
    @Inject(QuoteWriter) private readonly writer: QuoteWriter,
    @Inject(QUOTE_RETENTION_SECS) private readonly retentionSecs: number,
    @Inject(RANDOM_WORD) private readonly random: RandomWord,
    @Inject(TOKEN_PERMIT_READER) private readonly permits: TokenPermitReader,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(Clock) private readonly clock: Clock,
    /** Blockhashes for gasless Solana quotes' `svm.tx_base64`; without it they carry none. */
    @Inject(SVM_BLOCKHASH) private readonly blockhashes?: BlockhashSource,
    @Inject(DependencyOutages) private readonly outages?: Pick<DependencyOutages, 'of'>,
    /** The chain checks behind a quote's `issues`; without them a quote carries none. */
    @Inject(EXECUTABILITY) private readonly checks?: Executability,
    /** Checks, prices and simulates destination calls; without it a quote with one is refused. */
    @Inject(DESTINATION_CALLS) private readonly calls?: DestinationCalls,
  ) {}

  async preview(req: PreviewQuoteRequest, caller: CallerContext | undefined): Promise<QuotePreview> {
    const call = req.destination_call;
    const p = await this.pipeline.price(
      req,
      caller,
      this.clock.nowSecs(),
      call
        ? (src, dst) => {
            if (!this.calls) throw RpcError.unavailable('destination calls are not offered here', 'DESTINATION_CALL_UNCHECKED', 60);
            return this.calls.gasOnly(call, src, dst);
          }
        : undefined,
    );
    return { ...pricedFields(p.result, this.estimate(p), p.priceImpactBps), same_chain_swap: p.result.sameChainSwap };
  }

  async quote(req: GetQuoteRequest, caller: CallerContext | undefined): Promise<Quote> {
    const now = this.clock.nowSecs();
    let prepared: PreparedCall | undefined;
    const callInput = req.destination_call;
    const p = await this.pipeline.price(
      req,
      caller,
      now,
      callInput
        ? async (src, dst) => {
            if (!this.calls) throw RpcError.unavailable('destination calls are not offered here', 'DESTINATION_CALL_UNCHECKED', 60);
            prepared = await this.calls.prepare(callInput, src, dst, req.recipient);
            return prepared.gasNative;
          }
        : undefined,
    );
    const recipient = normaliseAddress(p.dstChain.vm, req.recipient);
    if (!recipient) throw invalid('recipient', `is not a ${p.dstChain.name} address`, 'INVALID_ADDRESS');
    const refund = normaliseAddress(p.srcChain.vm, req.refund_address);
    if (!refund) throw invalid('refund_address', `is not a ${p.srcChain.name} address`, 'INVALID_ADDRESS');

    const referrers = p.referrers.map((r) => ({ account: toBytes32(p.srcChain.vm, r.address), bps: r.bps }));
    // An order with a destination call commits to it through its salt (the Order struct is unchanged).
    const callSalt = prepared ? this.random() : undefined;
    const order: Order = {
      version: 1,
      salt: prepared && callSalt ? destinationCallSalt(callSalt, prepared.call) : this.random(),
      srcChainId: p.srcChain.chainId,
      dstChainId: p.dstChain.chainId,
      srcToken: toBytes32(p.srcChain.vm, p.src.address),
      dstToken: toBytes32(p.dstChain.vm, p.dst.address),
      amountIn: p.result.amountIn,
      amountOut: p.result.amountOut,
      minAmountOut: p.result.minAmountOut,
      recipient: toBytes32(p.dstChain.vm, recipient),
      refundAddress: toBytes32(p.srcChain.vm, refund),
      gasDrop: p.input.gasDrop,
      tradeType: TRADE_TYPE_NUMBER[p.input.tradeType],
      slippageBps: p.result.slippageBps,
      srcSlippageBps: p.result.srcSlippageBps,
      dstGasNative: p.result.dstGasNative,
      sponsorGas: p.result.sponsorGasInSrcToken,
      gasless: p.input.gasless,
      sponsorFees: p.input.sponsorFees,
      referrersHash: hashReferrers(referrers),
      issuedAt: BigInt(now),
      expiresAt: BigInt(now + EXPIRY_SECS),
      depositTarget: toBytes32(p.srcChain.vm, p.srcChain.depositTarget),
    };
    const encoded = encodeOrder(order);
    const quoteHash = hashOrder(order, encoded);
    if (prepared && callSalt && this.calls) await this.calls.simulate(p.dstChain, order, prepared.call, callSalt, p.dst.address);
    const expiresAt = new Date((now + EXPIRY_SECS) * 1000);
    const retainedUntil = new Date((now + this.retentionSecs) * 1000);
    // permit2 and erc2612 exist only for gasless quotes, which are cross-chain only.
    const wire = orderToWire(order, referrers);
    const evm = this.evmFields(p, order, encoded, refund);
    const [{ permit2, erc2612, ...deposit }, { svm }, issues] = await Promise.all([
      evm,
      svmDepositFieldsFrom(
        this.blockhashes,
        { order: wire, gasless: order.gasless && !p.result.sameChainSwap, chain: p.srcChain, token: p.src },
        this.log,
      ),
      this.checks?.issues({
        srcChain: p.srcChain,
        dstChain: p.dstChain,
        src: p.src,
        owner: refund,
        recipient,
        gasless: order.gasless,
        amountIn: order.amountIn,
        gasDrop: order.gasDrop,
        permitOffered: evm.then((f) => f.erc2612 !== undefined),
      }),
    ]);
    const content = {
      quote_hash: quoteHash,
      ...pricedFields(p.result, this.estimate(p), p.priceImpactBps),
      deposit_target: p.srcChain.depositTarget,
      order: wire,
      expires_at: rfc3339(expiresAt),
      retained_until: rfc3339(retainedUntil),
      ...deposit,
      ...(issues ? { issues } : {}),
    };
    const quote: Quote = p.result.sameChainSwap
      ? { same_chain_swap: content }
      : {
          cross_chain: {
            ...content,
            ...(prepared && callSalt ? { destination_call: DestinationCalls.view(prepared.call, callSalt) } : {}),
            ...(p.input.gasless
              ? {
                  gasless: true,
                  ...(p.srcChain.vm === 'evm' && p.srcChain.gaslessExecutor ? { gasless_executor: p.srcChain.gaslessExecutor } : {}),
                  ...(p.srcChain.vm === 'svm' && p.srcChain.feePayer ? { fee_payer: p.srcChain.feePayer } : {}),
                  ...(permit2 ? { permit2 } : {}),
                  ...(erc2612 ? { erc2612 } : {}),
                  ...(svm ? { svm } : {}),
                }
              : {}),
          },
        };
    // Stored (committed) before it is returned: a deposit may carry this hash the moment the caller
    // has it. Concurrent quotes share one INSERT (group commit, see QuoteWriter).
    await this.writer.store({
      quoteHash,
      kind: p.result.sameChainSwap ? 'same_chain_swap' : 'cross_chain',
      srcChain: p.srcChain.name,
      dstChain: p.dstChain.name,
      routeType: p.result.sameChainSwap ? 'same_chain_swap' : 'cross_chain',
      gasless: p.input.gasless,
      sponsorFees: p.input.sponsorFees,
      callerKind: caller?.kind ?? 'keyless',
      apiKeyId: caller?.kind === 'api_key' ? caller.key_id : null,
      partnerId: caller?.kind === 'api_key' ? caller.partner_id : null,
      order: content.order,
      response: responseForStorage(quote),
      expiresAt,
      retainedUntil,
    });
    return quote;
  }

  /** A stored quote while it is retained; NOT_FOUND otherwise. */
  async fetch(quoteHash: string): Promise<StoredQuote> {
    const row = await this.quotes.find(quoteHash.toLowerCase());
    if (!row || row.retainedUntil.getTime() < this.clock.nowMs())
      throw RpcError.notFound(`no retained quote ${quoteHash}`, 'QUOTE_NOT_FOUND');
    return {
      quote_hash: row.quoteHash,
      quote: storedResponse(row.response, row.order, row.retainedUntil, row.quoteHash),
      created_at: row.createdAt.toISOString(),
      retained_until: row.retainedUntil.toISOString(),
      caller_kind: row.callerKind,
      ...(row.apiKeyId ? { api_key_id: row.apiKeyId } : {}),
      ...(row.partnerId ? { partner_id: row.partnerId } : {}),
    };
  }

  /** The typed data to sign or the transaction to send, for a quote from an EVM chain. */
  private async evmFields(p: PricedRequest, order: Order, encoded: Uint8Array, refund: string): Promise<EvmDepositFields> {
    if (p.srcChain.vm !== 'evm') return {};
    const wantsPermit = order.gasless && p.src.permit && !p.src.isNative;
    const tokenPermit = wantsPermit ? await this.tokenPermit(p, refund) : undefined;
    return evmDepositFields({
      order,
      encoded,
      chain: p.srcChain,
      token: p.src,
      permit2Nonce: permit2NonceFrom(this.random()),
      ...(tokenPermit ? { tokenPermit } : {}),
    });
  }

  /** erc2612 is a convenience (the user can approve Permit2 instead): a chain read that fails costs it, never the quote. */
  private async tokenPermit(p: PricedRequest, owner: string): Promise<TokenPermit | undefined> {
    const rpc = this.outages?.of(chainRpcDependency(p.srcChain.name));
    try {
      const permit = await this.permits.read(p.srcChain, getAddress(p.src.address), getAddress(owner));
      rpc?.succeeded();
      return permit;
    } catch (err) {
      // An RPC that does not answer is one warning per outage, not one per quote.
      const failure = chainRpcFailure(err);
      if (rpc && failure)
        return void rpc.failed(err, { chain: p.srcChain.name, ...(failure.host ? { host: failure.host } : {}), err: failure.message });
      this.log.warn(
        { chain: p.srcChain.name, token: p.src.address, err: errorText(err) },
        'token permit read failed; quote without erc2612',
      );
      return undefined;
    }
  }

  private estimate(p: PricedRequest) {
    return this.eta.estimate(
      p.srcChain.name,
      p.dstChain.name,
      p.result.sameChainSwap ? 'same_chain_swap' : 'cross_chain',
      p.dstChain.defaultFulfillEtaSecs,
    );
  }
}

/** viem's short message leaves out the request body; other errors by their message. */
function errorText(err: unknown): string {
  return err instanceof BaseError ? err.shortMessage : err instanceof Error ? err.message : String(err);
}
