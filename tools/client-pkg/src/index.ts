export { type Release, buildClientPackage, packClientPackage, specifiersOf } from './build';
export { type BrowserBundle, type Esbuild, bundleForBrowser } from './browser-check';
export { scratchProject } from './scratch';
