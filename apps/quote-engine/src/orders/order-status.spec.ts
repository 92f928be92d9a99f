import { STEPS_BY_PRECEDENCE, STORED_STATUS_SQL, statusFilter, storedStatus, viewStatus } from './order-status';

describe('the one order status rule', () => {
  it('puts what the chains show first, the latest step winning, then a relay failure, then quoted', () => {
    expect(storedStatus(new Set(['deposited', 'fulfilled', 'refunded']), true)).toBe('refunded');
    expect(storedStatus(new Set(['deposited', 'fulfilled']), true)).toBe('fulfilled');
    expect(storedStatus(new Set(['deposited']), true)).toBe('deposited'); // a deposit seen is never failed
    expect(storedStatus(new Set(), true)).toBe('failed');
    expect(storedStatus(new Set(), false)).toBe('quoted');
  });

  it('calls a quoted order expired once its retention ended, at the time of the read only', () => {
    const retained = new Date(1_000_000);
    expect(viewStatus('quoted', retained, 1_000_000)).toBe('quoted');
    expect(viewStatus('quoted', retained, 1_000_001)).toBe('expired');
    expect(viewStatus('failed', retained, 2_000_000)).toBe('failed');
    expect(viewStatus('deposited', retained, 2_000_000)).toBe('deposited');
  });

  it('writes the same precedence in SQL', () => {
    const order = STEPS_BY_PRECEDENCE.map((s) => STORED_STATUS_SQL.indexOf(`THEN '${s}'`));
    expect(order.every((i) => i > 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(STORED_STATUS_SQL).toContain("CASE WHEN failed_at IS NULL THEN 'quoted' ELSE 'failed' END");
  });

  it('filters quoted and expired by the stored quoted status and the retention against now', () => {
    const now = new Date(5);
    expect(statusFilter('quoted', now)).toEqual({ stored: 'quoted', retained: { from: now } });
    expect(statusFilter('expired', now)).toEqual({ stored: 'quoted', retained: { before: now } });
    expect(statusFilter('failed', now)).toEqual({ stored: 'failed' });
  });
});
