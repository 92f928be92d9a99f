import { median } from './median';

describe('median', () => {
  it('takes the middle value, or the mean of the middle two, whatever the order', () => {
    expect(median([38, 28, 32])).toBe(32);
    expect(median([72, 60, 53, 66])).toBe(63);
    expect(median([5])).toBe(5);
    expect(median([])).toBeNaN();
  });
});
