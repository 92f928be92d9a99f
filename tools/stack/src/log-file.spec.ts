import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { RotatingLogFile, logFileLimits } from './log-file';

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'log-file-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const filesOf = (name: string) =>
  readdirSync(dir)
    .filter((f) => f === name || f.startsWith(`${name}.`))
    .sort();
/** Oldest first: `.log.2`, `.log.1`, `.log`. */
const linesOf = (name: string) =>
  filesOf(name)
    .sort((a, b) => Number(b.split('.log.')[1] ?? 0) - Number(a.split('.log.')[1] ?? 0))
    .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').slice(0, -1));

async function endAll(...inputs: Writable[]): Promise<void> {
  await Promise.all(inputs.map(async (s) => (s.end(), once(s, 'finish'))));
}

describe('RotatingLogFile', () => {
  it('rotates past the cap, keeps at most `keep` files, and never splits a line between files', async () => {
    const log = new RotatingLogFile(join(dir, 'gateway.log'), { maxBytes: 1024, keep: 3 });
    const out = log.input();
    const err = log.input();
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) lines.push(`{"n":${i},"src":"${i % 2 ? 'err' : 'out'}","pad":"${'x'.repeat(i % 50)}"}`);
    // Chunks cut at arbitrary places, mid-line and across lines, alternating between the two sources.
    const outText = lines
      .filter((_, i) => i % 2 === 0)
      .map((l) => `${l}\n`)
      .join('');
    const errText = lines
      .filter((_, i) => i % 2 === 1)
      .map((l) => `${l}\n`)
      .join('');
    for (let at = 0, step = 7; at < Math.max(outText.length, errText.length); at += step, step = ((step * 31) % 97) + 1) {
      out.write(outText.slice(at, at + step));
      err.write(errText.slice(at, at + step));
      expect(filesOf('gateway.log').length).toBeLessThanOrEqual(3);
    }
    await endAll(out, err);

    expect(filesOf('gateway.log')).toEqual(['gateway.log', 'gateway.log.1', 'gateway.log.2']);
    for (const f of filesOf('gateway.log')) {
      const text = readFileSync(join(dir, f), 'utf8');
      expect(statSync(join(dir, f)).size).toBeLessThanOrEqual(1024);
      expect(text.endsWith('\n')).toBe(true);
      // Every line in every file is one whole line that was written, never a piece of one.
      for (const line of text.split('\n').slice(0, -1)) expect(lines).toContain(line);
    }
    // What is kept is the newest output, in order per source, ending with each source's last line.
    const kept = linesOf('gateway.log');
    for (const src of ['out', 'err']) {
      const mine = kept.filter((l) => l.includes(`"src":"${src}"`)).map((l) => Number(/"n":(\d+)/.exec(l)![1]));
      expect(mine).toEqual([...mine].sort((a, b) => a - b));
      expect(mine.at(-1)).toBe(src === 'out' ? 398 : 399);
    }
    expect(kept.length).toBeLessThan(lines.length);
  });

  it('rotates an existing file already past the cap before its first new line, and keep=1 just starts over', async () => {
    writeFileSync(join(dir, 'nats.log'), `${'old\n'.repeat(300)}`);
    const log = new RotatingLogFile(join(dir, 'nats.log'), { maxBytes: 1024, keep: 1 });
    const input = log.input();
    input.write('new line\n');
    await endAll(input);
    expect(filesOf('nats.log')).toEqual(['nats.log']);
    expect(readFileSync(join(dir, 'nats.log'), 'utf8')).toBe('new line\n');
  });

  it('gives a line longer than the cap a file of its own, whole, and ends an unfinished last line', async () => {
    const log = new RotatingLogFile(join(dir, 'pg.log'), { maxBytes: 1024, keep: 3 });
    const input = log.input();
    const long = 'y'.repeat(1500);
    input.write('before\n');
    input.write(`${long}\nafter\nno newline at the end`);
    await endAll(input);
    expect(readFileSync(join(dir, 'pg.log.2'), 'utf8')).toBe('before\n');
    expect(readFileSync(join(dir, 'pg.log.1'), 'utf8')).toBe(`${long}\n`);
    expect(readFileSync(join(dir, 'pg.log'), 'utf8')).toBe('after\nno newline at the end\n');
  });
});

describe('logFileLimits', () => {
  it('defaults to 20 MiB and 3 files, and refuses values that are not whole numbers in range', () => {
    expect(logFileLimits({})).toEqual({ maxBytes: 20 * 1024 * 1024, keep: 3 });
    expect(logFileLimits({ LOG_FILE_MAX_BYTES: '4096', LOG_FILE_KEEP: '5' })).toEqual({ maxBytes: 4096, keep: 5 });
    expect(() => logFileLimits({ LOG_FILE_MAX_BYTES: '20MB' })).toThrow('LOG_FILE_MAX_BYTES must be a whole number ≥ 1024, got "20MB"');
    expect(() => logFileLimits({ LOG_FILE_KEEP: '0' })).toThrow('LOG_FILE_KEEP must be a whole number ≥ 1');
  });
});
