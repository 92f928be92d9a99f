import type { Price } from '@xchain/contracts';
import { LOGGER, NATS } from '@xchain/service-kit';
import { newTestService } from '@xchain/service-kit/testing';
import type { Logger } from '@xchain/telemetry';
import { PRICE_BUCKET_GRACE_MS, PRICE_MAX_AGE_SECS, PRICE_MAX_FUTURE_SKEW_SECS } from '../config.tokens';
import { BUCKET_GRACE_MS, PriceBook } from './price-book';

const NOW = 1_800_000_000;
const price = (publish_time: number, value = '350000000000'): Price => ({
  price_id: 'ethereum',
  price: value,
  expo: -8,
  conf: '0',
  publish_time,
  source: 'file',
});

describe('PriceBook', () => {
  const warn = jest.fn();
  const log = { warn, info: jest.fn(), error: jest.fn() } as unknown as Logger;
  const book = () =>
    newTestService(PriceBook, [
      { provide: NATS, useValue: {} },
      { provide: LOGGER, useValue: log },
      { provide: PRICE_MAX_AGE_SECS, useValue: 60 },
      { provide: PRICE_MAX_FUTURE_SKEW_SECS, useValue: 5 },
      { provide: PRICE_BUCKET_GRACE_MS, useValue: BUCKET_GRACE_MS },
    ]).sut;
  beforeEach(() => warn.mockReset());

  it('ignores a price stamped beyond the skew ahead of its clock, so it cannot freeze the price', () => {
    const b = book();
    expect(b.apply(price(NOW - 1, '100'), NOW)).toBe(true);
    // The attack: a value from an hour ahead would otherwise outrank every honest update for an hour.
    expect(b.apply(price(NOW + 3600, '1'), NOW)).toBe(false);
    expect(b.fresh('ethereum', NOW).price).toBe('100');
    expect(b.apply(price(NOW, '200'), NOW)).toBe(true);
    expect(b.fresh('ethereum', NOW).price).toBe('200');
  });

  it('accepts a price up to the skew ahead (clocks differ a little), not one second more', () => {
    const b = book();
    expect(b.apply(price(NOW + 5, '300'), NOW)).toBe(true);
    expect(b.apply(price(NOW + 6 + 1, '400'), NOW + 1)).toBe(false);
    expect(b.fresh('ethereum', NOW + 5).price).toBe('300');
  });

  it('logs a refused price once until an acceptable one arrives', () => {
    const b = book();
    b.apply(price(NOW + 100), NOW);
    b.apply(price(NOW + 101), NOW);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toMatchObject({ price_id: 'ethereum', ahead_secs: 100 });
    b.apply(price(NOW), NOW);
    b.apply(price(NOW + 102), NOW);
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it('still never lets an older value replace a newer one', () => {
    const b = book();
    b.apply(price(NOW, '500'), NOW);
    expect(b.apply(price(NOW - 10, '1'), NOW)).toBe(false);
    expect(b.fresh('ethereum', NOW).price).toBe('500');
  });
});
