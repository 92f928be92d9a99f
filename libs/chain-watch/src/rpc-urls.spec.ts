import { parseRpcUrls } from './rpc-urls';

describe('EVM_RPC_URLS', () => {
  it('reads chain=url pairs, ignoring blanks and spaces', () => {
    expect([...parseRpcUrls('')]).toEqual([]);
    expect([...parseRpcUrls(' base=http://127.0.0.1:8545 , ethereum=https://rpc.example/v1?key=a=b ,')]).toEqual([
      ['base', 'http://127.0.0.1:8545'],
      ['ethereum', 'https://rpc.example/v1?key=a=b'],
    ]);
  });

  it('refuses what would silently watch nothing or the wrong thing', () => {
    expect(() => parseRpcUrls('http://127.0.0.1:8545')).toThrow('is not chain=url');
    expect(() => parseRpcUrls('Base=http://x')).toThrow('lowercase chain name');
    expect(() => parseRpcUrls('base=ws://x')).toThrow('the URL of base is not an http(s) URL');
    expect(() => parseRpcUrls('base=http://a,base=http://b')).toThrow('base is named twice');
  });
});
