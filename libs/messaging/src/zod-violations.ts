import type { FieldViolation } from '@xchain/contracts';
import type { z } from 'zod';

/** Turns zod issues into google.rpc.BadRequest field violations (`a.b[0].c` paths). */
export function violationsOf(error: z.ZodError, prefix = ''): FieldViolation[] {
  return error.issues.map((issue) => {
    let field = prefix;
    for (const part of issue.path) {
      if (typeof part === 'number') field += `[${part}]`;
      else field += field ? `.${String(part)}` : String(part);
    }
    const description =
      issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message;
    return { field: field || '(body)', description };
  });
}
