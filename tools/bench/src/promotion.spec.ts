import { scavenges } from './promotion';

describe('scavenges (--trace-gc-nvp)', () => {
  it('reads the time and the bytes promoted of each scavenge, and skips full GCs and other lines', () => {
    const log = [
      '{"level":"warn","service":"gateway","msg":"slow"}',
      '[1:0x1:0]     9506 ms: pause=1.0 mutator=600.3 gc=s reduce_memory=0 allocated=12786568 promoted=291888 semi_space_copied=1',
      '[1:0x1:0]     9648 ms: pause=2.2 mutator=141.3 gc=mc reduce_memory=0 promoted=317728',
      '[1:0x1:0]     9793 ms: pause=1.2 mutator=142.5 gc=s reduce_memory=0 promoted=0 new_space_survived=5',
    ].join('\n');
    expect(scavenges(log)).toEqual([
      { atMs: 9506, promoted: 291888 },
      { atMs: 9793, promoted: 0 },
    ]);
  });
});
