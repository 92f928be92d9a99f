import 'reflect-metadata';
import { SELF_DECLARED_DEPS_METADATA } from '@nestjs/common/constants';
import { Clock, FakeClock, Ids, SequentialIds } from './clock';

/*
 * Unit-test support for every service (`@xchain/service-kit/testing`, never the lib's index: it
 * uses jest): an @Injectable service built with every collaborator faked, no database, no bus.
 */

type Class<T = unknown> = abstract new (...args: never[]) => T;
type InjectionToken = Class | symbol;

/** The transaction handle a faked repository's `transaction(fn)` passes to `fn`: it reaches no database. */
export const FAKE_TX: object = {};

/** A stand-in of a class whose every method is a jest mock (resolving undefined until told otherwise). */
export function mockOf<T>(cls: Class<T>): jest.Mocked<T> {
  const mock = Object.create(cls.prototype as object) as Record<string, unknown>;
  for (
    let proto: object | null = cls.prototype as object;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (
        name !== 'constructor' &&
        !(name in Object.prototype) &&
        !Object.hasOwn(mock, name) &&
        typeof Object.getOwnPropertyDescriptor(proto, name)?.value === 'function'
      ) {
        mock[name] = jest.fn();
      }
    }
  }
  // A repository's `transaction(fn)` runs `fn` at once, on the fake handle.
  if (typeof mock['transaction'] === 'function') {
    (mock['transaction'] as jest.Mock).mockImplementation((fn: (tx: object) => unknown) => fn(FAKE_TX));
  }
  return mock as jest.Mocked<T>;
}

export interface TestService<S> {
  /** The service under test. */
  sut: S;
  /** The mock injected for a class token (a repository, a client, another service). */
  mock<T>(cls: Class<T>): jest.Mocked<T>;
  clock: FakeClock;
  ids: SequentialIds;
}

/**
 * Builds `Service` as Nest would, from its constructor's `@Inject` tokens: `Clock` is a `FakeClock`,
 * `Ids` counts, a value token (config, a key) takes the value given in `values`, and every other
 * class token gets a `mockOf` that class. A token with no fake is an error, not a silent undefined.
 * A class token given in `values` takes that value instead of a mock (a real `Metrics`, or
 * `undefined` for a collaborator the service may go without).
 */
export function newTestService<S>(
  Service: new (...args: never[]) => S,
  values: { provide: InjectionToken; useValue: unknown }[] = [],
): TestService<S> {
  const clock = new FakeClock();
  const ids = new SequentialIds();
  const mocks = new Map<InjectionToken, unknown>();
  const given = new Map<InjectionToken, unknown>(values.map((v) => [v.provide, v.useValue]));
  const deps = (Reflect.getMetadata(SELF_DECLARED_DEPS_METADATA, Service) ?? []) as { index: number; param: InjectionToken }[];
  const args: unknown[] = new Array<unknown>(Service.length);
  for (const { index, param } of deps) {
    if (given.has(param)) args[index] = given.get(param);
    else if (param === Clock) args[index] = clock;
    else if (param === Ids) args[index] = ids;
    else if (typeof param === 'symbol') {
      throw new Error(`newTestService(${Service.name}): no value given for ${param.toString()}`);
    } else {
      const m = mockOf(param);
      mocks.set(param, m);
      args[index] = m;
    }
  }
  const sut = new Service(...(args as never[]));
  return {
    sut,
    clock,
    ids,
    mock<T>(cls: Class<T>): jest.Mocked<T> {
      const m = mocks.get(cls);
      if (!m) throw new Error(`${Service.name} does not inject ${cls.name}`);
      return m as jest.Mocked<T>;
    },
  };
}
