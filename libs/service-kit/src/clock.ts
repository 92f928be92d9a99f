import { randomUUID } from 'node:crypto';

/**
 * The time, injected (class token `Clock`) wherever a service reads it, so tests move it by hand.
 * Production binds `SystemClock`; tests use `FakeClock` from test support or construct their own.
 */
export abstract class Clock {
  /** Milliseconds since the epoch. */
  abstract nowMs(): number;
  now(): Date {
    return new Date(this.nowMs());
  }
  /** Whole seconds since the epoch, rounded down (what chains and typed data carry). */
  nowSecs(): number {
    return Math.floor(this.nowMs() / 1000);
  }
}

export class SystemClock extends Clock {
  nowMs(): number {
    return Date.now();
  }
}

/** A clock that stands still until moved: for unit tests. */
export class FakeClock extends Clock {
  constructor(private ms = Date.parse('2026-01-01T00:00:00Z')) {
    super();
  }
  nowMs(): number {
    return this.ms;
  }
  set(at: Date | number): void {
    this.ms = typeof at === 'number' ? at : at.getTime();
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** New identifiers (class token `Ids`): random UUIDs in production, a counter in tests. */
export abstract class Ids {
  abstract uuid(): string;
}

export class RandomIds extends Ids {
  uuid(): string {
    return randomUUID();
  }
}

/** Counting ids (`00000000-0000-4000-8000-000000000001`, …): for unit tests. */
export class SequentialIds extends Ids {
  private n = 0;
  uuid(): string {
    this.n += 1;
    return `00000000-0000-4000-8000-${this.n.toString(16).padStart(12, '0')}`;
  }
}

/**
 * A typed injection token for a value that has no class of its own (a config object): the type
 * rides along so `provideValue(TOKEN, value)` checks the value against it. Never a string.
 */
export type Token<T> = symbol & { readonly __type?: T };
export const token = <T>(name: string): Token<T> => Symbol(name) as Token<T>;
export const provideValue = <T>(provide: Token<T>, useValue: T) => ({ provide, useValue });

/** Clock and ids as the services bind them in production. */
export const timeProviders = () => [
  { provide: Clock, useClass: SystemClock },
  { provide: Ids, useClass: RandomIds },
];
