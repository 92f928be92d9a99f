import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { removeStaleBenchDirs } from './bench-stack';

describe('removeStaleBenchDirs', () => {
  let scratch: string;
  beforeEach(() => (scratch = mkdtempSync(join(tmpdir(), 'bench-scratch-'))));
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  it('removes the folders of benches whose process is gone, and only those', () => {
    // A pid that was surely in use and is surely gone: a process that ran and exited.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    const stale = `bench-${gone}-1795740000000`;
    const live = `bench-${process.pid}-1795740000000`;
    for (const name of [stale, live, 'run-123', 'e2e-abc', `bench-${gone}-notatime`]) {
      mkdirSync(join(scratch, name, 'postgres'), { recursive: true });
      writeFileSync(join(scratch, name, 'postgres', 'PG_VERSION'), '15\n');
    }

    expect(removeStaleBenchDirs(scratch)).toEqual([stale]);
    expect(existsSync(join(scratch, stale))).toBe(false);
    for (const kept of [live, 'run-123', 'e2e-abc', `bench-${gone}-notatime`]) expect(existsSync(join(scratch, kept))).toBe(true);
  });

  it('does nothing when there is no scratch folder yet', () => {
    expect(removeStaleBenchDirs(join(scratch, 'missing'))).toEqual([]);
  });
});
