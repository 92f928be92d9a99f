import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './services';

/**
 * TypeScript and Jest resolve `@xchain/*` from tsconfig.base.json, but the built services resolve
 * them from .swcrc: an alias missing there type-checks and passes every Jest suite, then fails
 * at run time in dist/. The two lists must be the same.
 */
it('gives swc the same path aliases as TypeScript', () => {
  const read = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));
  expect(read('.swcrc').jsc.paths).toEqual(read('tsconfig.base.json').compilerOptions.paths);
});
