import { RpcError } from '@xchain/contracts';
import { Metrics } from '@xchain/service-kit';
import { Registry } from 'prom-client';
import { invalid } from './quote-errors';
import { QuoteOutcomes, quoteOutcomeOf } from './quote-outcomes';

describe('quote outcomes', () => {
  it('counts each quote by operation and outcome, passing answers and refusals through unchanged', async () => {
    const registry = new Registry();
    const outcomes = new QuoteOutcomes(new Metrics(registry));
    await expect(outcomes.track('quote', async () => 'bound')).resolves.toBe('bound');
    const stale = RpcError.unavailable('price of ethereum is 90s old', 'STALE_PRICE', 5);
    await expect(outcomes.track('quote', async () => Promise.reject(stale))).rejects.toBe(stale);
    await expect(
      outcomes.track('preview', async () => Promise.reject(invalid('amount', 'too small', 'AMOUNT_BELOW_MIN'))),
    ).rejects.toBeInstanceOf(RpcError);
    await expect(outcomes.track('preview', async () => Promise.reject(new TypeError('bug')))).rejects.toBeInstanceOf(TypeError);
    const text = await registry.metrics();
    expect(text).toContain('quotes_total{operation="quote",outcome="ok"} 1');
    expect(text).toContain('quotes_total{operation="quote",outcome="STALE_PRICE"} 1');
    expect(text).toContain('quotes_total{operation="preview",outcome="AMOUNT_BELOW_MIN"} 1');
    expect(text).toContain('quotes_total{operation="preview",outcome="INTERNAL"} 1');
    expect(text).toContain('quotes_total{operation="preview",outcome="ok"} 0');
  });

  it('labels an error without a reason as UNSPECIFIED', () => {
    expect(quoteOutcomeOf(new RpcError(13, 'x', []))).toBe('UNSPECIFIED');
  });
});
