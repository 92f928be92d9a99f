import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { RotatingLogFile } from './log-file';

export interface Managed {
  name: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts a process; its output goes to a log file capped by LOG_FILE_MAX_BYTES / LOG_FILE_KEEP
 * (or is inherited); stop() ends it and waits.
 */
export function launch(name: string, cmd: string, args: string[], opts: SpawnOptions & { logFile?: string } = {}): Managed {
  const { logFile, ...spawnOpts } = opts;
  // Opened before the spawn, so a bad LOG_FILE_* value or an unwritable log stops the start with nothing to undo.
  const log = logFile ? new RotatingLogFile(logFile) : undefined;
  const child = spawn(cmd, args, { stdio: log ? ['ignore', 'pipe', 'pipe'] : 'inherit', ...spawnOpts });
  if (log) {
    child.stdout?.pipe(log.input());
    child.stderr?.pipe(log.input());
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resolves when `probe` succeeds; rejects after `timeoutMs` or when the process dies first. */
export async function waitFor(what: string, probe: () => Promise<boolean>, timeoutMs: number, proc?: Managed): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (proc && (proc.child.exitCode !== null || proc.child.signalCode !== null)) {
      throw new Error(`${what} exited (code ${proc.child.exitCode ?? proc.child.signalCode}) before it was ready`);
    }
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} was not ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export function tcpOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host });
    socket.setTimeout(500);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/** A port the kernel says is free right now on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export async function httpOk(url: string, timeoutMs = 1000): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  return res.ok;
}
