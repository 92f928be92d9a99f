import { randomBytes, randomUUID } from 'node:crypto';

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

/**
 * New identifiers (class token `Ids`): random in production, counting in tests. Public ids, not
 * secrets (session tokens and API keys come from their own CSPRNG calls and never from here).
 */
export abstract class Ids {
  abstract uuid(): string;
  /** `n` fresh bytes. */
  abstract bytes(n: number): Buffer;
  /** A public id with a kind prefix: `ptn_` and 96 bits in base64url by default. */
  id(kind: string, bytes = 12): string {
    return `${kind}_${this.bytes(bytes).toString('base64url')}`;
  }
  /** 32 bytes as 0x-hex (a bytes32 on chain). */
  bytes32(): `0x${string}` {
    return `0x${this.bytes(32).toString('hex')}`;
  }
}

export class RandomIds extends Ids {
  uuid(): string {
    return randomUUID();
  }
  bytes(n: number): Buffer {
    return randomBytes(n);
  }
}

/** Counting ids (`00000000-0000-4000-8000-000000000001`, …; bytes end in the count): for unit tests. */
export class SequentialIds extends Ids {
  private n = 0;
  uuid(): string {
    this.n += 1;
    return `00000000-0000-4000-8000-${this.n.toString(16).padStart(12, '0')}`;
  }
  bytes(size: number): Buffer {
    this.n += 1;
    const out = Buffer.alloc(size);
    out.writeUInt32BE(this.n, Math.max(0, size - 4));
    return out;
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
