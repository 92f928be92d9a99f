import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Managed, httpOk, launch, tcpOpen, waitFor } from './process';

/** The five services: how to start each built one and where its readiness probe answers. */
export interface ServiceSpec {
  name: 'gateway' | 'quote-engine' | 'price-oracle' | 'gasless-relayer' | 'partner-service';
  portVar: string;
  database?: string;
}

export const SERVICES: readonly ServiceSpec[] = [
  { name: 'quote-engine', portVar: 'QUOTE_ENGINE_PORT', database: 'quote_engine' },
  { name: 'partner-service', portVar: 'PARTNER_SERVICE_PORT', database: 'partner_service' },
  { name: 'price-oracle', portVar: 'PRICE_ORACLE_PORT' },
  { name: 'gasless-relayer', portVar: 'GASLESS_RELAYER_PORT', database: 'gasless_relayer' },
  { name: 'gateway', portVar: 'GATEWAY_PORT' },
];

/** The repository root, found from here whether this runs from src (Jest) or dist. */
export const ROOT = findRoot(__dirname);

function findRoot(from: string): string {
  for (let dir = from; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'nx.json'))) return dir;
  }
  throw new Error(`repository root not found above ${from}`);
}
const NODE = process.execPath;

/**
 * The Node flags every service runs with, here and in its image (docker/Dockerfile's ENTRYPOINT,
 * held equal by dockerfile.spec.ts). `--max-semi-space-size=16` caps V8's young generation at
 * 2 × 16 MiB. Node 24 otherwise grows it to 2 × 64 MiB under load whatever the heap limit, which
 * raises each service's RSS and lengthens every scavenge's pause (`npm run bench:speed` shows both).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];

/**
 * Node flags a service gets beyond SERVICE_NODE_FLAGS, from its environment's
 * SERVICE_EXTRA_NODE_FLAGS (space-separated). The stack never sets it: it is for measuring a flag
 * on one side of an A/B (`BENCH_AFTER_ENV=SERVICE_EXTRA_NODE_FLAGS=...` with bench:transport).
 */
export function extraNodeFlags(env: NodeJS.ProcessEnv): string[] {
  return (env['SERVICE_EXTRA_NODE_FLAGS'] ?? '').split(/\s+/).filter(Boolean);
}

export function entryOf(name: ServiceSpec['name'], root = ROOT): string {
  return join(root, 'dist/apps', name, 'src/main.js');
}

export interface StartServiceOptions {
  spec: ServiceSpec;
  port: number;
  env: NodeJS.ProcessEnv;
  logFile?: string;
  readyTimeoutMs?: number;
  /** A built checkout to run the service from (default: this one). */
  root?: string | undefined;
}

/** Starts one built service and waits for its `/readyz`. */
export async function startBuiltService(opts: StartServiceOptions): Promise<Managed> {
  if (await tcpOpen(opts.port)) {
    throw new Error(`port ${opts.port} for ${opts.spec.name} is already in use; set ${opts.spec.portVar} to a free port`);
  }
  const proc = launch(opts.spec.name, NODE, [...SERVICE_NODE_FLAGS, ...extraNodeFlags(opts.env), entryOf(opts.spec.name, opts.root)], {
    env: { ...opts.env, [opts.spec.portVar]: String(opts.port) },
    logFile: opts.logFile,
    cwd: opts.root ?? ROOT,
  });
  try {
    // Only bounds a hang: on a loaded 2-core machine a full test run once kept the quote-engine
    // unready for over 20 s while the price-oracle had not yet made the prices bucket.
    await waitFor(opts.spec.name, () => httpOk(`http://127.0.0.1:${opts.port}/readyz`), opts.readyTimeoutMs ?? 60_000, proc);
  } catch (err) {
    await proc.stop();
    // The reason is in the service's own log: bring its last lines into the error.
    const tail = opts.logFile && existsSync(opts.logFile) ? readFileSync(opts.logFile, 'utf8').trim().split('\n').slice(-5).join('\n') : '';
    throw new Error(`${err instanceof Error ? err.message : String(err)}${tail ? `; last log lines:\n${tail}` : ''}`);
  }
  return proc;
}

/** Runs a built tool (migrate, seed) to completion; throws with its output on failure. */
export async function runTool(script: string, args: string[], env: NodeJS.ProcessEnv, root = ROOT): Promise<string> {
  const { execFile } = await import('node:child_process');
  return new Promise((resolvePromise, reject) => {
    execFile(NODE, [join(root, script), ...args], { env, cwd: root, timeout: 60_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${script} failed: ${stderr || err.message}`));
      else resolvePromise(stdout.trim());
    });
  });
}
