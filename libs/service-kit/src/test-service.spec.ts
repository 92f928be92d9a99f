import { Inject, Injectable } from '@nestjs/common';
import { Clock, FakeClock, Ids, SequentialIds, token } from './clock';
import { FAKE_TX, newTestService } from './test-service.testing';

class Store {
  async transaction<T>(fn: (tx: object) => Promise<T>): Promise<T> {
    return fn({ real: true });
  }
  async save(_v: string): Promise<void> {}
}
class Other {
  ping(): string {
    return 'real';
  }
}
const LIMIT = token<number>('LIMIT');

@Injectable()
class Saver {
  constructor(
    @Inject(Store) readonly store: Store,
    @Inject(Clock) readonly clock: Clock,
    @Inject(Ids) readonly ids: Ids,
    @Inject(LIMIT) readonly limit: number,
  ) {}
}

describe('newTestService', () => {
  it('injects a mock of each class token, a fake clock, counting ids, the values given, and runs a transaction on the fake handle', async () => {
    const t = newTestService(Saver, [{ provide: LIMIT, useValue: 7 }]);
    const store = t.mock(Store);
    expect(jest.isMockFunction(store.save)).toBe(true);
    expect(t.sut.store).toBe(store);
    expect(t.clock).toBeInstanceOf(FakeClock);
    expect(t.sut.clock).toBe(t.clock);
    expect(t.ids).toBeInstanceOf(SequentialIds);
    expect(t.sut.ids).toBe(t.ids);
    expect(t.sut.limit).toBe(7);
    await expect(store.transaction(async (tx) => tx)).resolves.toBe(FAKE_TX);
  });

  it('refuses to build a service whose value token was not given, and to hand out a mock it does not inject', () => {
    expect(() => newTestService(Saver)).toThrow(/^newTestService\(Saver\): no value given for Symbol\(LIMIT\)$/);
    expect(() => newTestService(Saver, [{ provide: LIMIT, useValue: 1 }]).mock(Other)).toThrow('Saver does not inject Other');
  });

  it('injects the value given for a class token instead of a mock', () => {
    const store = new Store();
    const t = newTestService(Saver, [
      { provide: LIMIT, useValue: 1 },
      { provide: Store, useValue: store },
    ]);
    expect(t.sut.store).toBe(store);
    expect(() => t.mock(Store)).toThrow('Saver does not inject Store');
  });
});
