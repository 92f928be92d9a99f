import { join } from 'node:path';
import { type Managed, ROOT, freePort, launch, waitFor } from '@xchain/stack';

export interface Anvil {
  rpcUrl: string;
  chainId: number;
  proc: Managed;
}

/** Anvil's well-known first dev account (funded on every anvil start). */
export const ANVIL_DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const;

/**
 * Starts the real anvil binary on a loopback port (`port`, else a free one) and waits until it
 * answers. With `stateFile` the chain is kept across starts: loaded from the file if it exists,
 * written back every few seconds and on exit (so a restart finds the blocks, balances and nonces
 * the services' databases remember). `host` is the address it listens on (default loopback; a
 * container's chains listen on 0.0.0.0); the returned URL is always loopback's.
 */
export async function startAnvil(chainId = 1337, opts: { port?: number; stateFile?: string; host?: string } = {}): Promise<Anvil> {
  const port = opts.port ?? (await freePort());
  const bin = join(ROOT, 'node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil');
  const state = opts.stateFile ? ['--state', opts.stateFile, '--state-interval', '2'] : [];
  const proc = launch(
    'anvil',
    bin,
    ['--port', String(port), '--host', opts.host ?? '127.0.0.1', '--chain-id', String(chainId), '--silent', ...state],
    { logFile: '/dev/null' },
  );
  const rpcUrl = `http://127.0.0.1:${port}`;
  await waitFor(
    'anvil',
    async () => {
      const res = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
        signal: AbortSignal.timeout(500),
      });
      return res.ok;
    },
    15_000,
    proc,
  );
  return { rpcUrl, chainId, proc };
}
