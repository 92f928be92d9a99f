import { isBuiltin } from 'node:module';

/** The part of esbuild's API the check uses (esbuild is installed where the bundle is made, not in the monorepo). */
export interface Esbuild {
  build(
    options: Record<string, unknown>,
  ): Promise<{ metafile?: { inputs: Record<string, unknown> }; outputFiles?: { contents: Uint8Array }[] }>;
}

export interface BrowserBundle {
  /** Every import of a Node built-in the bundle reached, as `importer imports specifier`. */
  nodeImports: string[];
  /** The files the bundle holds, relative to `resolveDir`. */
  inputs: string[];
  bytes: number;
}

/**
 * Bundles `code` (resolved from `resolveDir`, as a bundler in a wallet team's project would) for
 * the browser with esbuild and lists each Node built-in it reached. A browser build must reach none:
 * bundlers fail on them, or ship empty stand-ins that break at run time.
 */
export async function bundleForBrowser(esbuild: Esbuild, code: string, resolveDir: string): Promise<BrowserBundle> {
  const nodeImports: string[] = [];
  const result = await esbuild.build({
    stdin: { contents: code, resolveDir, sourcefile: 'entry.mjs', loader: 'js' },
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    plugins: [
      {
        name: 'node-builtins',
        setup(build: { onResolve(o: { filter: RegExp }, f: (a: { path: string; importer: string }) => unknown): void }) {
          build.onResolve({ filter: /.*/ }, (args) => {
            if (!isBuiltin(args.path)) return undefined;
            nodeImports.push(`${args.importer} imports ${args.path}`);
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  return {
    nodeImports,
    inputs: Object.keys(result.metafile?.inputs ?? {}),
    bytes: (result.outputFiles ?? []).reduce((n, f) => n + f.contents.length, 0),
  };
}
