import { GASLESS_EVENTS_STREAM_DEF, ORDER_EVENTS_STREAM_DEF, STREAM_DEFINITIONS } from '@xchain/contracts';
import { compareStream } from './streams';

describe('compareStream', () => {
  it('finds nothing when the server stream is as defined (subjects in any order)', () => {
    const def = { ...GASLESS_EVENTS_STREAM_DEF, subjects: ['a.*', 'b.*'] };
    expect(compareStream(def, { subjects: ['b.*', 'a.*'], max_age: def.maxAgeSecs * 1e9, storage: 'file' })).toEqual([]);
  });

  it('names each difference: subjects, max age, storage', () => {
    const def = ORDER_EVENTS_STREAM_DEF;
    expect(compareStream(def, { subjects: ['orders.v1.deposited'], max_age: 7 * 24 * 3600 * 1e9, storage: 'memory' })).toEqual([
      'subjects: server [orders.v1.deposited], defined [orders.v1.*]',
      'max_age: server 604800 s, defined 2592000 s',
      'storage: server memory, defined file',
    ]);
    expect(compareStream(def, { subjects: ['orders.v1.*'], max_age: 0, storage: 'file' })).toEqual([
      'max_age: server unlimited, defined 2592000 s',
    ]);
  });

  it('the contracts define each of the three streams once', () => {
    const names = STREAM_DEFINITIONS.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual(['GASLESS_EVENTS_V1', 'ORDER_EVENTS_V1', 'ORDER_UPDATES_V1']);
  });
});
