import { pooledRandomWords } from './quote-random';

describe('pooledRandomWords', () => {
  it('gives 32-byte words that never repeat, across several refills of the pool', () => {
    const next = pooledRandomWords(4);
    const words = Array.from({ length: 4 * 50 }, () => next());
    for (const w of words) expect(w).toMatch(/^0x[0-9a-f]{64}$/);
    expect(new Set(words).size).toBe(words.length);
  });

  it('refills from the CSPRNG: two pools give different words', () => {
    const a = pooledRandomWords(2);
    const b = pooledRandomWords(2);
    expect(a()).not.toBe(b());
  });
});
