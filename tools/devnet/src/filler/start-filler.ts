import type { Hex } from 'viem';
import { DEV_FILLER_KEY } from '../dev-keys';
import { readDevnetPlan } from '../devnet-plan';
import type { Devnet } from '../start-devnet';
import { equipFiller } from './equip-filler';
import type { FillDelay } from './fill-delay';
import { type FillOutcome, LocalFiller } from './local-filler';

export interface DevnetFillerOptions {
  delay: FillDelay;
  /** Default DEV_FILLER_KEY (anvil account #5). */
  fillerKey?: Hex;
  registryFile?: string;
  partnersFile?: string;
  pollMs?: number;
  log?: (line: string) => void;
  onOutcome?: (outcome: FillOutcome) => void;
}

/**
 * Equips the filler's wallet on every chain of a running devnet (gas, tokens, router approvals)
 * and starts filling: what `devnet serve` does unless DEVNET_FILL_DELAY_MS is `off`. It only ever
 * sees the devnet's own anvils, never the chains of a user's EVM_RPC_URLS.
 */
export async function startDevnetFiller(devnet: Pick<Devnet, 'chains' | 'rpcUrls'>, opts: DevnetFillerOptions): Promise<LocalFiller> {
  const fillerKey = opts.fillerKey ?? DEV_FILLER_KEY;
  const plans = readDevnetPlan([...devnet.chains.keys()], opts.registryFile, opts.partnersFile);
  await equipFiller(devnet.rpcUrls, plans, fillerKey, { registryFile: opts.registryFile, partnersFile: opts.partnersFile });
  const filler = new LocalFiller({
    chains: plans.map((p) => ({ name: p.name, chainId: p.chainId, rpcUrl: devnet.chains.get(p.name)!.rpcUrl, router: p.depositTarget })),
    fillerKey,
    delay: opts.delay,
    pollMs: opts.pollMs,
    log: opts.log,
    onOutcome: opts.onOutcome,
  });
  filler.start();
  return filler;
}
