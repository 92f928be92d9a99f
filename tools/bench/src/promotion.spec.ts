import { gcs, oldGenerationGrowth } from './promotion';

const nvp = (ms: number, kind: string, fields: string) =>
  `[1:0x1:0]     ${ms} ms: pause=1.0 mutator=600.3 gc=${kind} reduce_memory=0 ${fields}`;

describe('gcs (--trace-gc-nvp)', () => {
  it('reads the time, kind, bytes promoted and heap sizes of each GC; other lines are skipped', () => {
    const log = [
      '{"level":"warn","service":"gateway","msg":"slow"}',
      nvp(9506, 's', 'end_object_size=50000000 allocated=12786568 promoted=291888 new_space_survived=1000 nodes_promoted=3'),
      nvp(9648, 'mc', 'end_object_size=40000000 promoted=317728 new_space_survived=0'),
      nvp(9793, 's', 'promoted=0 end_object_size=41000000 new_space_survived=5'),
    ].join('\n');
    expect(gcs(log)).toEqual([
      { atMs: 9506, kind: 's', promoted: 291888, endObjectSize: 50_000_000, newSpaceSurvived: 1000 },
      { atMs: 9648, kind: 'mc', promoted: 317728, endObjectSize: 40_000_000, newSpaceSurvived: 0 },
      { atMs: 9793, kind: 's', promoted: 0, endObjectSize: 41_000_000, newSpaceSurvived: 5 },
    ]);
  });
});

describe('oldGenerationGrowth', () => {
  const s = (endObjectSize: number, newSpaceSurvived: number) => ({ atMs: 0, kind: 's', promoted: 0, endObjectSize, newSpaceSurvived });

  it('adds what the old generation (heap less what stayed young) gained from one scavenge to the next, promoted or allocated there directly', () => {
    // old: 40 MB, then 41 MB (young shrank, old grew by 1 MB), then 43.5 MB.
    expect(oldGenerationGrowth([s(42_000_000, 2_000_000), s(42_500_000, 1_500_000), s(45_000_000, 1_500_000)])).toBe(3_500_000);
  });

  it('does not count across a full GC, which frees old objects, nor a fall (sweeping)', () => {
    const mc = { atMs: 0, kind: 'mc', promoted: 0, endObjectSize: 30_000_000, newSpaceSurvived: 0 };
    expect(oldGenerationGrowth([s(50_000_000, 0), mc, s(31_000_000, 0), s(30_500_000, 0), s(32_000_000, 0)])).toBe(1_500_000);
  });
});
