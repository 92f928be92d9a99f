import { FakeClock, RandomIds, SequentialIds, SystemClock } from './clock';

describe('Clock and Ids', () => {
  it('a fake clock stands still until moved, and reads whole seconds rounded down', () => {
    const clock = new FakeClock(Date.parse('2026-11-27T10:00:00.999Z'));
    expect(clock.nowSecs()).toBe(Date.parse('2026-11-27T10:00:00Z') / 1000);
    clock.advance(1);
    expect(clock.now().toISOString()).toBe('2026-11-27T10:00:01.000Z');
    clock.set(new Date('2027-01-01T00:00:00Z'));
    expect(clock.nowMs()).toBe(Date.parse('2027-01-01T00:00:00Z'));
  });

  it('the system clock follows Date.now, and sequential ids count in UUID form', () => {
    const before = Date.now();
    const at = new SystemClock().nowMs();
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
    const ids = new SequentialIds();
    expect([ids.uuid(), ids.uuid()]).toEqual(['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002']);
    expect(ids.bytes32()).toBe(`0x${'00'.repeat(28)}00000003`);
    expect(ids.id('ptn')).toBe(`ptn_${Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4]).toString('base64url')}`);
  });

  it('random ids are the documented sizes and differ each time', () => {
    const ids = new RandomIds();
    expect(ids.id('key')).toMatch(/^key_[A-Za-z0-9_-]{16}$/);
    expect(ids.bytes32()).toMatch(/^0x[0-9a-f]{64}$/);
    expect(ids.bytes32()).not.toBe(ids.bytes32());
  });
});
