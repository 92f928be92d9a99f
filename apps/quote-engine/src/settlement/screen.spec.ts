import { screen } from './screen';

const now = new Date('2026-11-27T12:00:00Z');
const base = { now, retainedUntil: new Date('2026-12-04T12:00:00Z'), marginSecs: 600, expectedDeposit: 1_000_000n, deposited: 1_000_000n };

describe('screen: what a deposit must pass before inventory is looked at', () => {
  it('passes a deposit of exactly the order amount well inside retention', () => {
    expect(screen(base)).toBeUndefined();
  });

  it('refunds a deposit one base unit off in either direction (MISMATCH), never rounds', () => {
    expect(screen({ ...base, deposited: 999_999n })).toEqual({ reason: 'MISMATCH', error: 'deposited 999999, the order needs 1000000' });
    expect(screen({ ...base, deposited: 1_000_001n })?.reason).toBe('MISMATCH');
  });

  it('takes an event recorded without an amount on the router’s word (it checked the amount)', () => {
    expect(screen({ ...base, deposited: null })).toBeUndefined();
  });

  it('refunds a deposit inside the margin before retention ends (RETENTION), and fills one just outside it', () => {
    const edge = new Date(base.retainedUntil.getTime() - 600_000);
    expect(screen({ ...base, now: edge })).toBeUndefined();
    expect(screen({ ...base, now: new Date(edge.getTime() + 1) })?.reason).toBe('RETENTION');
    expect(screen({ ...base, now: new Date(base.retainedUntil.getTime() + 1) })?.reason).toBe('RETENTION');
  });

  it('says a mismatch first: a wrong deposit is refunded as such even late', () => {
    expect(screen({ ...base, deposited: 1n, now: base.retainedUntil })?.reason).toBe('MISMATCH');
  });
});
