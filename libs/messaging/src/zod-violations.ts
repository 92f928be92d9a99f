import type { FieldViolation } from '@xchain/contracts';
import type { z } from 'zod';

/**
 * Turns zod issues into google.rpc.BadRequest field violations (`a.b[0].c` paths). With the input
 * that was parsed, a field of the wrong type says what it must be, and only an absent one says
 * "is required" (zod does not keep the input on its issues).
 */
export function violationsOf(error: z.ZodError, input?: unknown): FieldViolation[] {
  return error.issues.map((issue) => {
    let field = '';
    for (const part of issue.path) {
      if (typeof part === 'number') field += `[${part}]`;
      else field += field ? `.${String(part)}` : String(part);
    }
    let description = issue.message;
    if (issue.code === 'invalid_type') {
      description = valueAt(input, issue.path) === undefined ? 'is required' : `must be ${article(issue.expected)}`;
    }
    return { field: field || '(body)', description };
  });
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let v = input;
  for (const part of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[part];
  }
  return v;
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}
