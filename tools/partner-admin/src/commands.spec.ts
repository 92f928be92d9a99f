import { COMMANDS, compact, parseFlags } from './commands';

describe('partner-admin commands', () => {
  it('parses --flag value pairs and refuses stray words or a flag without a value', () => {
    expect(parseFlags(['--email', 'a@b.c', '--max-keys', '3'])).toEqual({ email: 'a@b.c', 'max-keys': '3' });
    expect(() => parseFlags(['email', 'a@b.c'])).toThrow(/--flag value/);
    expect(() => parseFlags(['--email'])).toThrow(/--flag value/);
  });

  it('builds requests the contracts accept, leaving absent options out', () => {
    const credit = compact(COMMANDS['credit']!.request(parseFlags(['--email', 'a@b.co', '--usd-micros', '25000000', '--reason', 'wire'])));
    expect(credit).toEqual({ email: 'a@b.co', direction: 'credit', usd_micros: '25000000', reason: 'wire' });
    expect(COMMANDS['credit']!.contract.request.safeParse(credit).success).toBe(true);
    const partner = compact(COMMANDS['create-partner']!.request(parseFlags(['--email', 'a@b.co', '--max-keys', '3'])));
    expect(COMMANDS['create-partner']!.contract.request.safeParse(partner)).toMatchObject({ success: true, data: { max_keys: 3 } });
    const bad = compact(COMMANDS['create-partner']!.request(parseFlags(['--email', 'not-an-email'])));
    expect(COMMANDS['create-partner']!.contract.request.safeParse(bad).success).toBe(false);
  });
});
