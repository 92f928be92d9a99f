import { closeSync, existsSync, fstatSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { Writable } from 'node:stream';

/**
 * How big a service's log file may grow and how many files of it are kept.
 * A busy gateway writes hundreds of megabytes in minutes; without a cap the local stack fills the disk.
 */
export interface LogFileLimits {
  /** `<name>.log` is rotated before a line would take it past this many bytes. */
  maxBytes: number;
  /** Files kept in all, the live one included: `<name>.log`, `<name>.log.1`, … `<name>.log.<keep-1>`. */
  keep: number;
}

export const DEFAULT_LOG_FILE_LIMITS: LogFileLimits = { maxBytes: 20 * 1024 * 1024, keep: 3 };

/** Reads LOG_FILE_MAX_BYTES and LOG_FILE_KEEP; a bad value stops the start with a message naming it. */
export function logFileLimits(env: NodeJS.ProcessEnv = process.env): LogFileLimits {
  const int = (name: string, fallback: number, min: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || !Number.isSafeInteger(Number(raw))) {
      throw new Error(`${name} must be a whole number ≥ ${min}, got "${raw}"`);
    }
    return Number(raw);
  };
  return {
    maxBytes: int('LOG_FILE_MAX_BYTES', DEFAULT_LOG_FILE_LIMITS.maxBytes, 1024),
    keep: int('LOG_FILE_KEEP', DEFAULT_LOG_FILE_LIMITS.keep, 1),
  };
}

const NL = 0x0a;

/**
 * One log file with a size cap. Several sources (a child's stdout and stderr) write into it through
 * their own `input()`, each assembling whole lines first, so a line is never split across two files
 * nor interleaved with another source's half line. Writes are synchronous: a log line is on disk
 * before the next chunk is read, and a dying service's last words are there for the error message.
 */
export class RotatingLogFile {
  private fd: number;
  private size: number;
  private reported = false;
  private inputs = 0;

  constructor(
    readonly path: string,
    private readonly limits: LogFileLimits = logFileLimits(),
    private readonly onError: (err: Error) => void = (err) => console.error(`[stack] log ${path}: ${err.message}`),
  ) {
    this.fd = openSync(path, 'a');
    this.size = fstatSync(this.fd).size;
  }

  /**
   * A stream for one source. It never emits an error: a full disk must not stall the child's pipe.
   * The file closes itself once every input it handed out has ended.
   */
  input(): Writable {
    this.inputs++;
    let pending: Buffer = Buffer.alloc(0);
    // A line without an end is let through whole once it reaches this, so memory stays bounded.
    const longest = Math.min(this.limits.maxBytes, 1024 * 1024);
    return new Writable({
      write: (chunk: Buffer, _enc, done) => {
        const data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
        const end = data.lastIndexOf(NL) + 1;
        if (end > 0) this.append(data.subarray(0, end));
        pending = data.subarray(end);
        if (pending.length >= longest) {
          this.append(Buffer.concat([pending, Buffer.from('\n')]));
          pending = Buffer.alloc(0);
        }
        done();
      },
      final: (done) => {
        if (pending.length > 0) this.append(Buffer.concat([pending, Buffer.from('\n')]));
        pending = Buffer.alloc(0);
        if (--this.inputs === 0) this.close();
        done();
      },
    });
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }

  /** Writes whole lines (`block` ends with a newline), rotating between lines as the cap requires. */
  private append(block: Buffer): void {
    if (this.fd < 0) return;
    try {
      let from = 0;
      while (from < block.length) {
        const room = this.limits.maxBytes - this.size;
        let cut = from;
        if (room > 0) {
          const last = block.lastIndexOf(NL, Math.min(block.length, from + room) - 1);
          if (last >= from) cut = last + 1;
        }
        if (cut === from) {
          if (this.size > 0) {
            this.rotate();
            continue;
          }
          // One line longer than the cap: it gets a file of its own rather than being cut.
          cut = block.indexOf(NL, from) + 1;
        }
        this.writeAll(block.subarray(from, cut));
        from = cut;
      }
    } catch (err) {
      if (!this.reported) this.onError(err instanceof Error ? err : new Error(String(err)));
      this.reported = true;
    }
  }

  private writeAll(bytes: Buffer): void {
    for (let at = 0; at < bytes.length;) at += writeSync(this.fd, bytes, at, bytes.length - at);
    this.size += bytes.length;
  }

  /** `<name>.log` → `.log.1` → … ; the oldest beyond `keep` files is dropped. */
  private rotate(): void {
    closeSync(this.fd);
    this.fd = -1;
    const nth = (i: number) => (i === 0 ? this.path : `${this.path}.${i}`);
    rmSync(nth(this.limits.keep - 1), { force: true });
    for (let i = this.limits.keep - 2; i >= 0; i--) if (existsSync(nth(i))) renameSync(nth(i), nth(i + 1));
    this.fd = openSync(this.path, 'a');
    this.size = 0;
  }
}
