import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUS_USERS } from '@xchain/contracts';
import { ROOT } from '@xchain/stack';
import { generatedFiles } from './generated-files';
import { K8S_CLUSTER, PASSWORD_RULE, ROUTE_PASSWORD_VAR, passwordVar, routeVar } from './nats-config';

/** The committed generated files are what the generator makes from today's contracts and config/. */
describe('generated deployment files', () => {
  it.each(Object.entries(generatedFiles(ROOT)))(
    '%s is up to date (else: npm run build && node dist/tools/deploy/src/generate.js)',
    (path, content) => {
      expect(readFileSync(join(ROOT, path), 'utf8')).toBe(content);
    },
  );
});

/** nats-server's own configuration check (`-t`), with the variables the pods or compose set. */
function natsConfigTest(text: string, env: Record<string, string>): { ok: boolean; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'nats-conf-'));
  try {
    const file = join(dir, 'nats.conf');
    writeFileSync(file, text);
    const res = spawnSync('nats-server', ['-t', '-c', file], {
      env: { PATH: process.env['PATH'], ...env },
      encoding: 'utf8',
      timeout: 10_000,
    });
    if (res.error) throw new Error(`nats-server cannot run (${res.error.message}); scripts/ensure-deps.sh installs it`);
    return { ok: res.status === 0, out: `${res.stdout}${res.stderr}` };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the generated NATS configurations', () => {
  const passwords = Object.fromEntries(BUS_USERS.map((u, i) => [passwordVar(u), `p${i}x${'0a'.repeat(12)}`]));
  const routes = Object.fromEntries(
    Array.from({ length: K8S_CLUSTER.replicas }, (_, i) => [
      routeVar(i),
      `nats-route://route:r0a0a0a0a0a0a0a0a@nats-${i}.nats-headless:6222`,
    ]),
  );
  const cluster = { ...passwords, ...routes, [ROUTE_PASSWORD_VAR]: 'r0a0a0a0a0a0a0a0a', POD_NAME: 'nats-0' };
  const files = generatedFiles(ROOT);

  it('write no password: every one is a variable', () => {
    // The cluster's routes have a password of their own.
    for (const [text, count] of [
      [files['k8s/base/nats/nats.conf']!, BUS_USERS.length + 1],
      [files['docker/nats.conf']!, BUS_USERS.length],
    ] as const) {
      const passwordsWritten = [...text.matchAll(/password: (\S+?)[,\s}]/g)].map((m) => m[1]);
      expect(passwordsWritten.length).toBe(count);
      for (const p of passwordsWritten) expect(p).toMatch(/^\$[A-Z0-9_]+$/);
    }
  });

  it('are accepted by nats-server with the variables set, and refused with one missing', () => {
    expect(natsConfigTest(files['k8s/base/nats/nats.conf']!, cluster)).toEqual({ ok: true, out: expect.stringContaining('is valid') });
    expect(natsConfigTest(files['docker/nats.conf']!, passwords)).toEqual({ ok: true, out: expect.stringContaining('is valid') });
    const { [passwordVar('operator')]: _dropped, ...withoutOperator } = passwords;
    const refused = natsConfigTest(files['docker/nats.conf']!, withoutOperator);
    expect(refused.ok).toBe(false);
    expect(refused.out).toContain(passwordVar('operator'));
  });

  it('documents a password rule that nats-server reads as a string', () => {
    // A value nats-server would read as a number or a boolean, or not parse, breaks the rule…
    for (const bad of ['123456789012345678', 'true', '-abcdefghijklmnop', 'abc def ghi jkl mno']) expect(bad).not.toMatch(PASSWORD_RULE);
    // …and one that keeps it is accepted as the password.
    const good = `p${'0123456789abcdef'.repeat(3)}`;
    expect(good).toMatch(PASSWORD_RULE);
    expect(natsConfigTest(files['docker/nats.conf']!, { ...passwords, [passwordVar('gateway')]: good }).ok).toBe(true);
  });
});
