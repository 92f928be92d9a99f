import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PendingTable } from './pending-table';

describe('PendingTable', () => {
  it('hands each entry out once, under a token never made before', () => {
    const t = new PendingTable<string>();
    const a = t.add('a');
    expect(t.take(a)).toBe('a');
    expect(t.take(a)).toBeUndefined();
    const b = t.add('b'); // reuses the slot a had
    expect(b).not.toBe(a);
    expect(t.take(a)).toBeUndefined(); // a late reply to a finds nothing, and b still waits
    expect(t.take(b)).toBe('b');
  });

  it('finds nothing for tokens it did not make', () => {
    const t = new PendingTable<string>();
    t.add('x');
    for (const token of ['', '_', '__proto__', 'constructor', '-1_0', '0_1', 'zzzzzzzzzzzzzz_0', '1e3_0'])
      expect(t.take(token)).toBeUndefined();
  });

  it('finds and lists the oldest waiting entries first', () => {
    const t = new PendingTable<{ subject: string }>();
    const [x1, y1, y2] = [t.add({ subject: 'x' }), t.add({ subject: 'y' }), t.add({ subject: 'y' })];
    t.take(x1);
    const y3 = t.add({ subject: 'y' }); // in x1's slot, the first one, but the newest
    expect(t.findOldest((p) => p.subject === 'y')).toBe(y1);
    t.take(y1);
    expect(t.findOldest((p) => p.subject === 'y')).toBe(y2);
    expect(t.findOldest((p) => p.subject === 'x')).toBeUndefined();
    expect(t.tokens()).toEqual([y2, y3]);
  });

  describe('does not keep answered requests alive through young GCs', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as (opts?: { type: 'minor' | 'major' }) => void;
    const oldSpaceUsed = () => getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_used_size;

    /**
     * The values are made by a class, not by a literal or `Array.from`: V8 would pretenure a literal
     * or array site whose objects survived in one test, and the next test's objects from that site
     * would be made in old space directly.
     */
    class Link {
      constructor(
        readonly n: number,
        readonly next: Link | undefined,
      ) {}
    }
    const value = (n: number): Link => {
      let v: Link | undefined;
      for (let i = 0; i < 100; i++) v = new Link(n, v);
      return v!;
    };

    interface Table {
      add(value: unknown): string;
      take(token: string): void;
    }

    /**
     * Requests four at a time, each answered (taken) four requests later. The table has survived
     * two young GCs first, as it has after a pause in bus traffic. Each value is about 2 KB, so
     * 4,000 requests make about 8 MB. Returns how much old space grew once young GCs ran.
     */
    function oldSpaceGrowth(table: Table): number {
      table.take(table.add(1));
      gc({ type: 'minor' });
      gc({ type: 'minor' });
      gc();
      const before = oldSpaceUsed();
      const waiting: string[] = [];
      for (let i = 0; i < 4_000; i++) {
        waiting.push(table.add(value(i)));
        if (waiting.length > 4) table.take(waiting.shift()!);
      }
      for (const token of waiting.splice(0)) table.take(token);
      gc({ type: 'minor' });
      gc({ type: 'minor' });
      return oldSpaceUsed() - before;
    }

    it('premise: through a Map, V8 promotes the answered requests', () => {
      const map = new Map<string, unknown>();
      let next = 0;
      const growth = oldSpaceGrowth({
        add: (v) => {
          const token = `r${next++}`;
          map.set(token, v);
          return token;
        },
        take: (token) => map.delete(token),
      });
      expect(growth).toBeGreaterThan(4_000_000);
    });

    it('through a PendingTable it does not', () => {
      for (let run = 0; run < 3; run++) expect(oldSpaceGrowth(new PendingTable<unknown>())).toBeLessThan(1_000_000);
    });
  });
});
