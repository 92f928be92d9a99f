import { Inject, Injectable } from '@nestjs/common';
import { RpcError } from '@xchain/contracts';
import { Metrics } from '@xchain/service-kit';

export type QuoteOperation = 'preview' | 'quote';

/** `ok`, or the refusal's ErrorInfo reason (STALE_PRICE, AMOUNT_BELOW_MIN…); INTERNAL for anything unplanned. */
export function quoteOutcomeOf(err: unknown): string {
  if (err === undefined) return 'ok';
  if (!(err instanceof RpcError)) return 'INTERNAL';
  for (const d of err.status.details) {
    // Reasons are code constants (the contract's pattern), so the label set stays bounded.
    if (d['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo' && /^[A-Z][A-Z0-9_]{0,63}$/.test(d.reason)) return d.reason;
  }
  return 'UNSPECIFIED';
}

/** Counts every PreviewQuote and GetQuote by its outcome: `quotes_total{operation, outcome}`. */
@Injectable()
export class QuoteOutcomes {
  private readonly quotes;

  constructor(@Inject(Metrics) metrics: Metrics) {
    this.quotes = metrics.counter({
      name: 'quotes_total',
      help: 'Quotes asked of the quote-engine, by operation (preview, quote) and outcome (ok or the refusal reason)',
      labelNames: ['operation', 'outcome'],
    });
    for (const operation of ['preview', 'quote'] as const) this.quotes.inc({ operation, outcome: 'ok' }, 0);
  }

  /** Runs one quote operation and counts how it ended; its answer or error passes through unchanged. */
  async track<T>(operation: QuoteOperation, run: () => Promise<T>): Promise<T> {
    try {
      const answer = await run();
      this.quotes.inc({ operation, outcome: 'ok' });
      return answer;
    } catch (err) {
      this.quotes.inc({ operation, outcome: quoteOutcomeOf(err) });
      throw err;
    }
  }
}
