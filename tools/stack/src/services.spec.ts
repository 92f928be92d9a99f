import { extraNodeFlags } from './services';

describe('extraNodeFlags', () => {
  it('adds the space-separated flags of SERVICE_EXTRA_NODE_FLAGS, and nothing when it is unset or blank', () => {
    expect(extraNodeFlags({ SERVICE_EXTRA_NODE_FLAGS: ' --no-allocation-site-pretenuring  --stack-size=2000 ' })).toEqual([
      '--no-allocation-site-pretenuring',
      '--stack-size=2000',
    ]);
    expect(extraNodeFlags({})).toEqual([]);
    expect(extraNodeFlags({ SERVICE_EXTRA_NODE_FLAGS: '   ' })).toEqual([]);
  });
});
