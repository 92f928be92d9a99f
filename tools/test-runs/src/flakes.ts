import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@xchain/stack';
import { type JestJson, type SuiteRun, suiteRuns, tally, tallyTable } from './jest-results';

/**
 * `npm run test:flakes [-- --full N] [--alone N] [--only REGEX]`: runs the whole suite N times
 * (default 3) and each end-to-end suite that kills, stops or times something N times alone (default
 * 5), then prints a table per suite (runs, passes, failures, the failing assertions) and exits 1
 * if anything failed. Every run has servers of its own (test-servers) and its own Jest output in
 * `.test-data/flakes-<time>/`.
 */

/** What marks a suite as one that kills, stops or times something. */
const DISRUPTIVE_CODE = /SIGKILL|SIGSTOP|SIGTERM|\.kill\(|\.restart\(|restartOnFreshChains/;
const DISRUPTIVE_NAME = /outage|timeout|crash|fault|restart|resilience|replicas|cluster|readiness/;

export function disruptiveSuites(root = ROOT): string[] {
  const dir = join(root, 'test/e2e');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.e2e.ts'))
    .filter((f) => DISRUPTIVE_NAME.test(f) || DISRUPTIVE_CODE.test(readFileSync(join(dir, f), 'utf8')))
    .map((f) => `test/e2e/${f}`)
    .sort();
}

interface Args {
  full: number;
  alone: number;
  only?: RegExp;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { full: 3, alone: 5 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--full' || flag === '--alone') {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0) throw new Error(`${flag} needs a whole number, got ${value}`);
      args[flag === '--full' ? 'full' : 'alone'] = n;
      i++;
    } else if (flag === '--only' && value) {
      args.only = new RegExp(value);
      i++;
    } else throw new Error(`unknown argument ${flag}; usage: test:flakes [--full N] [--alone N] [--only REGEX]`);
  }
  return args;
}

/**
 * The repository's Node (the pinned `node` package) and a PATH that finds it first, whatever Node
 * started this script: Jest's launcher and the services it starts run on `node` from the PATH and on
 * their parent's Node, and the machine's own Node is older (a native addon, litesvm, aborts on it).
 */
const REPO_NODE = join(ROOT, 'node_modules/.bin/node');
const runEnv = (): NodeJS.ProcessEnv => ({ ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env['PATH'] ?? ''}` });

/** One Jest run under its own test servers; resolves with its suites (none when Jest wrote no result). */
async function jestRun(dir: string, name: string, jestArgs: string[]): Promise<SuiteRun[]> {
  const out = join(dir, `${name}.json`);
  const log = createWriteStream(join(dir, `${name}.log`));
  const code = await new Promise<number>((resolve) => {
    const child = spawn(
      existsSync(REPO_NODE) ? REPO_NODE : process.execPath,
      [
        join(ROOT, 'dist/tools/stack/src/test-servers.js'),
        '--',
        join(ROOT, 'node_modules/.bin/jest'),
        '--ci',
        '--json',
        `--outputFile=${out}`,
        '--reporters=default',
        `--reporters=${join(ROOT, 'dist/tools/test-runs/src/failure-logs.reporter.js')}`,
        ...jestArgs,
      ],
      { cwd: ROOT, env: runEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.once('exit', (c) => resolve(c ?? 1));
  });
  log.end();
  if (!existsSync(out)) return [{ suite: `${name} (no Jest result, exit ${code})`, passed: false, ms: 0, failure: `see ${name}.log` }];
  return suiteRuns(JSON.parse(readFileSync(out, 'utf8')) as JestJson, ROOT);
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const dir = join(ROOT, '.test-data', `flakes-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  mkdirSync(dir, { recursive: true });
  const say = (line: string) => console.log(`[test:flakes] ${line}`);
  const whole: SuiteRun[] = [];
  for (let i = 1; i <= args.full; i++) {
    const started = Date.now();
    const runs = await jestRun(dir, `full-${i}`, ['--maxWorkers=2', ...(args.only ? ['--testPathPatterns', args.only.source] : [])]);
    whole.push(...runs);
    const failed = runs.filter((r) => !r.passed).map((r) => r.suite);
    say(
      `whole run ${i}/${args.full}: ${runs.length} suites in ${Math.round((Date.now() - started) / 1000)} s, ${failed.length} failed${failed.length ? `: ${failed.join(', ')}` : ''}`,
    );
  }
  const suites = disruptiveSuites().filter((s) => !args.only || args.only.test(s));
  if (args.alone > 0)
    say(`each of ${suites.length} suites that kill, stop or time something, ${args.alone} times alone: ${suites.join(', ')}`);
  const alone: SuiteRun[] = [];
  for (const suite of suites) {
    for (let i = 1; i <= args.alone; i++) {
      const escaped = suite.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      const runs = await jestRun(
        dir,
        `${suite
          .split('/')
          .pop()!
          .replace(/\.e2e\.ts$/, '')}-${i}`,
        ['--selectProjects', 'e2e', '--testPathPatterns', `${escaped}$`],
      );
      alone.push(...runs);
      say(
        `${suite} alone ${i}/${args.alone}: ${runs.every((r) => r.passed) ? 'passed' : 'FAILED'} (${Math.round((runs[0]?.ms ?? 0) / 1000)} s)`,
      );
    }
  }
  const report = [
    `# test:flakes, ${new Date().toISOString()}`,
    '',
    `## The whole suite, ${args.full} runs`,
    '',
    tallyTable(tally(whole)),
    '',
    `## Suites that kill, stop or time something, ${args.alone} runs each, alone`,
    '',
    tallyTable(tally(alone)),
    '',
  ].join('\n');
  writeFileSync(join(dir, 'flakes.md'), report);
  console.log(`\n${report}`);
  const failures = [...whole, ...alone].filter((r) => !r.passed).length;
  say(
    `${failures === 0 ? 'no failure' : `${failures} failed suite runs`} across ${whole.length + alone.length} suite runs; Jest output in ${dir}`,
  );
  return failures === 0 ? 0 : 1;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`[test:flakes] ${err instanceof Error ? err.message : String(err)}`);
      process.exit(2);
    },
  );
}
