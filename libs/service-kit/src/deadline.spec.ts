import { withDeadline } from './deadline';

describe('withDeadline', () => {
  it('gives the work when it settles in time, and its rejection as is', async () => {
    await expect(withDeadline(Promise.resolve(7), 50, () => 'late')).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error('boom')), 50, () => 'late')).rejects.toThrow('boom');
  });

  it('gives or throws what onTimeout does when the work does not settle in time', async () => {
    const never = new Promise<number>(() => undefined);
    await expect(withDeadline(never, 10, () => 'late')).resolves.toBe('late');
    await expect(
      withDeadline(never, 10, (): never => {
        throw new Error('no answer');
      }),
    ).rejects.toThrow('no answer');
  });
});
