import { bullmqConnection } from './bullmq-connection';

describe('bullmqConnection', () => {
  it("passes the URL's ACL user with its password (D17), decoded", () => {
    expect(bullmqConnection('redis://e2e_ab_gasless-relayer:p%40ss@127.0.0.1:6380/2')).toEqual({
      host: '127.0.0.1',
      port: 6380,
      username: 'e2e_ab_gasless-relayer',
      password: 'p@ss',
      db: 2,
      maxRetriesPerRequest: null,
    });
  });

  it('leaves the user out when the URL has none', () => {
    expect(bullmqConnection('redis://:secret@127.0.0.1')).toEqual({
      host: '127.0.0.1',
      port: 6379,
      password: 'secret',
      maxRetriesPerRequest: null,
    });
  });
});
