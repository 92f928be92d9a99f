import { join } from 'node:path';
import { ROOT } from '@xchain/stack';
import { buildClientPackage, packClientPackage } from './build';

/** `client:pack`: builds libs/client into dist/libs/client-pkg and packs it there (`xchain-client-<version>.tgz`). */
function main(): void {
  const outDir = join(ROOT, 'dist/libs/client-pkg');
  const release = buildClientPackage(ROOT, outDir);
  const tarball = packClientPackage(outDir, join(ROOT, 'dist/libs'));
  process.stdout.write(`${release.name}@${release.version}: ${tarball}\n`);
}

if (require.main === module) main();
