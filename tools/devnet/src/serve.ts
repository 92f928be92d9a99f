import { type DevSolana, startLocalSolana } from '@xchain/solana-standin';
import { tcpOpen } from '@xchain/stack';
import { privateKeyToAddress } from 'viem/accounts';
import { readDevnetPlan } from './devnet-plan';
import { equipFiller } from './filler/equip-filler';
import { serveConfig } from './serve-config';
import { type Devnet, startDevnet } from './start-devnet';
import { readDevnetState, removeDevnetState, writeDevnetState } from './state-file';

/**
 * `devnet serve [--until-stdin-closes]`: runs the local chains until SIGTERM or SIGINT (or, with
 * the flag, until whoever started it closes its stdin, so a parent that dies cannot leave anvils
 * behind). `npm start` runs it as its own process group: Ctrl-C reaches the services first, and
 * the chains stop only when the stack stops them. The operator wallet (FILLER_PRIVATE_KEYS) is the
 * routers' refunder and settler and gets gas, tokens and router approvals, so the system's own
 * settlement fills and refunds on these chains. Ready when the state file is written.
 */
export async function serve(args: string[]): Promise<number> {
  const config = serveConfig(process.env);
  const taken: string[] = [];
  for (const [chain, port] of Object.entries(config.ports)) {
    if (await tcpOpen(port)) taken.push(`port ${port} for anvil (${chain}) is already in use; set ANVIL_BASE_PORT to a free port`);
  }
  if (await tcpOpen(config.attesterPort))
    taken.push(`port ${config.attesterPort} for the CCTP attester is already in use; set ANVIL_BASE_PORT to a free port`);
  if (taken.length > 0) throw new Error(taken.join('\n'));

  // Listening before the chains start: a stop asked for during the start must still end them.
  const running: { devnet?: Devnet; solana?: DevSolana } = {};
  let stopRequested: { reason: string; code: number } | undefined;
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  const stop = (reason: string, code: number) => {
    if (stopRequested) return;
    stopRequested = { reason, code };
    console.log(`[devnet] ${reason}: stopping the local chains`);
    const devnet = running.devnet;
    if (!devnet) return; // the start below sees the request when it is done
    // Only our own state: another devnet may have written the file since.
    if (readDevnetState(config.stateFile)?.pid === process.pid) removeDevnetState(config.stateFile);
    void Promise.all([devnet.stop(), running.solana?.stop()]).then(() => finish(code));
  };
  process.once('SIGTERM', () => stop('SIGTERM', 0));
  process.once('SIGINT', () => stop('SIGINT', 0));
  if (args.includes('--until-stdin-closes')) {
    process.stdin.once('close', () => stop('parent gone', 0));
    process.stdin.resume();
  }

  const operator = privateKeyToAddress(config.fillerKey);
  const started = await startDevnet({
    chains: config.chains,
    refunder: operator,
    settler: operator,
    ports: config.ports,
    attesterPort: config.attesterPort,
    host: config.host,
    blockTimeSecs: config.blockTimeSecs,
    stateDir: config.chainStateDir,
    fund: config.relayers,
    ...(config.voucherSigner ? { voucherSigner: config.voucherSigner } : {}),
    ...(config.partnersFile ? { partnersFile: config.partnersFile } : {}),
    onProgress: (line) => console.log(`[devnet] ${line}`),
  });
  if (!stopRequested) {
    try {
      const plans = readDevnetPlan([...started.chains.keys()], undefined, config.partnersFile);
      await equipFiller(started.rpcUrls, plans, config.fillerKey, config.partnersFile ? { partnersFile: config.partnersFile } : {});
      console.log(
        `[devnet] operator wallet ${operator} (FILLER_PRIVATE_KEYS): gas, 1,000,000 of every token and router approvals on every chain`,
      );
    } catch (err) {
      await started.stop();
      throw err;
    }
  }
  // Solana next to the anvils (tools/solana-standin), unless SOLANA_RPC_URL names a cluster.
  if (!stopRequested) {
    try {
      running.solana = await startLocalSolana(process.env, (line) => console.log(`[devnet] ${line}`));
    } catch (err) {
      await started.stop();
      throw err;
    }
  }
  if (stopRequested) {
    await Promise.all([started.stop(), running.solana?.stop()]);
    return stopRequested.code;
  }
  running.devnet = started;
  for (const [name, chain] of started.chains) {
    chain.proc.child.once('exit', (code) => stop(`anvil of ${name} exited unexpectedly (code ${code})`, 1));
  }
  writeDevnetState(config.stateFile, started, {
    ...config.serviceDefaults,
    ...(config.devRelayerKeys ? { RELAYER_PRIVATE_KEYS: config.devRelayerKeys } : {}),
    ...(config.devFillerKey ? { FILLER_PRIVATE_KEYS: config.devFillerKey } : {}),
    ...running.solana?.serviceEnv,
  });
  console.log(
    `[devnet] ready: ${started.rpcUrls}${started.attestationUrl ? `, CCTP attestations at ${started.attestationUrl}` : ''} (state in ${config.stateFile})`,
  );
  return finished;
}
