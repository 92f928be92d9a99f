import { RouteTable } from './route-table';

describe('RouteTable', () => {
  const routes = new RouteTable();
  routes.add('GET', '/json/v1/tokens');
  routes.add('POST', '/json/v1/quote');
  routes.add('DELETE', '/json/v1/partner/sessions/{id}');

  it('lists the methods allowed at a known path, HEAD with GET', () => {
    expect(routes.allowed('/json/v1/tokens')).toEqual(['GET', 'HEAD']);
    expect(routes.allowed('/json/v1/quote')).toEqual(['POST']);
    expect(routes.allowed('/json/v1/partner/sessions/abc')).toEqual(['DELETE']);
  });

  it('knows nothing of other paths, including prefixes and deeper paths', () => {
    expect(routes.allowed('/json/v1/token')).toEqual([]);
    expect(routes.allowed('/json/v1/partner/sessions/a/b')).toEqual([]);
    expect(routes.allowed('/json/v1/quote/preview')).toEqual([]);
  });
});
