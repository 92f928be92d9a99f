import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { RotatingLogFile } from './log-file';
import { endWithLauncher } from './watchdog';

export interface Managed {
  name: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts a process; its output goes to a log file capped by LOG_FILE_MAX_BYTES / LOG_FILE_KEEP
 * (or is inherited); stop() ends it and waits. It does not outlive this process.
 */
export function launch(name: string, cmd: string, args: string[], opts: SpawnOptions & { logFile?: string } = {}): Managed {
  const { logFile, ...spawnOpts } = opts;
  // Opened before the spawn, so a bad LOG_FILE_* value or an unwritable log stops the start with nothing to undo.
  const log = logFile ? new RotatingLogFile(logFile) : undefined;
  const child = spawn(cmd, args, { stdio: log ? ['ignore', 'pipe', 'pipe'] : 'inherit', ...spawnOpts });
  // Ended with this process, however it ends (see watchdog.ts).
  endWithLauncher(child);
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

/**
 * The kernel's range for outgoing connections' local ports (Linux; the usual default elsewhere).
 * Every client socket any process opens takes a port from it.
 */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low! <= high!) return [low!, high!];
  } catch {
    // not Linux: fall through
  }
  return [32768, 60999];
}

/** Ports handed out by this process, so that two calls never give the same one. */
const given = new Set<number>();

function bindable(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : undefined));
    });
  });
}

/**
 * A port free right now on loopback, for a server started a moment later. It is picked at random
 * below the kernel's ephemeral range: a port the kernel picked itself (listen on 0) is released
 * before the server binds it, and in that gap any outgoing connection on the machine (another
 * test's database client, say) may take it as its local port, and the server fails with "address in
 * use". Below the range only another caller's pick can collide.
 */
export async function freePort(): Promise<number> {
  const [ephemeralLow] = ephemeralRange();
  const low = 10_000;
  const high = ephemeralLow - 1;
  for (let attempt = 0; high > low && attempt < 50; attempt++) {
    const candidate = low + Math.floor(Math.random() * (high - low + 1));
    if (given.has(candidate)) continue;
    const port = await bindable(candidate);
    if (port !== undefined) {
      given.add(port);
      return port;
    }
  }
  // No room below the range (or every pick was taken): let the kernel choose.
  const port = await bindable(0);
  if (port === undefined) throw new Error('no free port on 127.0.0.1');
  given.add(port);
  return port;
}

export async function httpOk(url: string, timeoutMs = 1000): Promise<boolean> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  return res.ok;
}
