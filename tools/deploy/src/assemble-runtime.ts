import { resolve } from 'node:path';
import { IMAGE_NAMES, imageSpec, type ImageName } from './images';
import { assembleRuntime } from './runtime-layout';

/**
 * `node dist/tools/deploy/src/assemble-runtime.js <image> <out-dir>`: lays out one image's runtime
 * folder from this built checkout (the Dockerfile's build stage runs it; see runtime-layout.ts).
 */
function main(): void {
  const [image, out] = process.argv.slice(2);
  if (!image || !out) {
    console.error(`usage: assemble-runtime <image> <out-dir>   (image: ${IMAGE_NAMES.join(', ')})`);
    process.exit(2);
  }
  imageSpec(image);
  const root = resolve(__dirname, '../../../..');
  const layout = assembleRuntime(root, image as ImageName, resolve(out));
  console.log(JSON.stringify({ image, out: layout.out, dist_files: layout.distFiles.length, packages: layout.packages.length }));
}

try {
  main();
} catch (err) {
  console.error(`assemble-runtime: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
