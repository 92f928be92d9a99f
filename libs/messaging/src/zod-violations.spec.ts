import { z } from 'zod';
import { violationsOf } from './zod-violations';

describe('violationsOf', () => {
  const schema = z.object({
    amount: z.string(),
    gasless: z.boolean().optional(),
    referrers: z.array(z.object({ address: z.string(), bps: z.number() })),
  });
  const violations = (input: unknown) => {
    const r = schema.safeParse(input);
    if (r.success) throw new Error('accepted');
    return violationsOf(r.error, input);
  };

  it('says a missing field is required and a field of the wrong type what it must be', () => {
    expect(violations({ gasless: 'yes', referrers: [{ address: 7 }] })).toEqual([
      { field: 'amount', description: 'is required' },
      { field: 'gasless', description: 'must be a boolean' },
      { field: 'referrers[0].address', description: 'must be a string' },
      { field: 'referrers[0].bps', description: 'is required' },
    ]);
  });

  it('names a null field as present but of the wrong type', () => {
    expect(violations({ amount: null, referrers: {} })).toEqual([
      { field: 'amount', description: 'must be a string' },
      { field: 'referrers', description: 'must be an array' },
    ]);
  });
});
