import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CCTP_V2_MESSAGE_TRANSMITTER, CCTP_V2_TOKEN_MESSENGER } from '@xchain/cctp';
import { type Attester, type AttesterDomain, DEV_CCTP_ATTESTER_KEY, startAttester } from '@xchain/cctp-attester';
import { compileXchainContracts, startAnvil } from '@xchain/chain-tools';
import type { Managed } from '@xchain/stack';
import { type Address, createTestClient, getAddress, http } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { DEV_CCTP_FEE_RECIPIENT, DEV_FEE_RECIPIENT, DEV_FILLER, DEV_VOUCHER_SIGNER } from './dev-keys';
import { readDevnetPlan } from './devnet-plan';
import { DEV_RETENTION_SECS, cctpPlan, equipChain } from './equip-chain';
import { formatRpcUrls } from './rpc-urls';

export interface DevnetOptions {
  /** Registry chain names, EVM only. */
  chains: string[];
  registryFile?: string;
  partnersFile?: string;
  /** Port per chain name; a chain not named here gets a free port. */
  ports?: Record<string, number>;
  /** Port of the CCTP attestation stand-in; unset: a free port. */
  attesterPort?: number;
  /** The address every anvil listens on (default loopback). */
  host?: string;
  /** Receives the gasless executors' fees; default DEV_FEE_RECIPIENT (anvil account #9). */
  feeRecipient?: Address;
  /** Wallets given native gas on every chain (the relayer's). */
  fund?: Address[];
  /** The voucher routers' operator; default DEV_VOUCHER_SIGNER (anvil account #1). */
  voucherSigner?: Address;
  /** The routers' refunder; default DEV_FILLER (anvil account #5, the local filler). */
  refunder?: Address;
  /** The routers' settler; default DEV_FILLER (anvil account #5, the local filler). */
  settler?: Address;
  /** The routers' treasury, where claims pay delivered orders' deposits; default DEV_FILLER, the filler itself (decision D20). */
  treasury?: Address;
  /** The routers' retention in seconds; default DEV_RETENTION_SECS (7 days, the quote-engine's default). */
  retentionSecs?: number;
  /** Mine a block every this many seconds once set up; unset or 0: a block per transaction. */
  blockTimeSecs?: number;
  /**
   * Keep each chain across starts in `<stateDir>/anvil-<chain>.json` (npm start: the services'
   * databases remember nonces, positions and orders, so the chains must too). Unset: every start
   * is a fresh chain at block 0 (tests, benches).
   */
  stateDir?: string;
  onProgress?: (line: string) => void;
}

export interface DevnetChain {
  rpcUrl: string;
  chainId: number;
  proc: Managed;
}

export interface Devnet {
  /** In the order of `chains`. */
  chains: Map<string, DevnetChain>;
  /** `EVM_RPC_URLS` for the services: `ethereum=http://…,base=http://…`. */
  rpcUrls: string;
  feeRecipient: Address;
  /** The address every router lets cancel and refund. */
  refunder: Address;
  /** The address every router lets claim. */
  settler: Address;
  /** Where every router's claims go. */
  treasury: Address;
  /** Every router's retention, seconds after an order's issuedAt. */
  retentionSecs: number;
  /**
   * The CCTP attestation stand-in over every chain CCTP serves (Circle's `GET /v2/messages/…`,
   * tools/cctp-attester), signing as DEV_CCTP_ATTESTER_KEY: the base URL a client uses where it
   * would use Circle's (CCTP_ATTESTATION_URL). Undefined when no chain of the devnet has a CCTP domain.
   */
  attestationUrl?: string;
  /** That stand-in, for a test in this process to withhold attestations (`withhold`, `release`). */
  attester?: Pick<Attester, 'withhold' | 'release' | 'withheld'>;
  stop(): Promise<void>;
}

/** Native gas given to each `fund` wallet: plenty for a local session of relaying. */
const GAS_FUNDING_WEI = 100n * 10n ** 18n;

/**
 * Starts one anvil per chain, in parallel, each with the registry's real chain id (Permit2's and
 * the tokens' EIP-712 domains depend on it), and places Permit2, our router and gasless executor,
 * every registry token and the partner routers at the addresses the registry and partners file
 * name; on each chain CCTP serves, Circle's CCTP V2 stand-ins at its mainnet addresses, with an
 * attestation stand-in over them all (`attestationUrl`). Without `stateDir` nothing persists:
 * every start is a fresh chain at block 0.
 */
export async function startDevnet(opts: DevnetOptions): Promise<Devnet> {
  const say = opts.onProgress ?? (() => undefined);
  const plans = readDevnetPlan(opts.chains, opts.registryFile, opts.partnersFile);
  if (plans.length === 0) throw new Error('the devnet needs at least one chain');
  const roles = {
    feeRecipient: getAddress(opts.feeRecipient ?? DEV_FEE_RECIPIENT),
    voucherSigner: getAddress(opts.voucherSigner ?? DEV_VOUCHER_SIGNER),
    refunder: getAddress(opts.refunder ?? DEV_FILLER),
    settler: getAddress(opts.settler ?? DEV_FILLER),
    treasury: getAddress(opts.treasury ?? DEV_FILLER),
    cctpAttester: privateKeyToAddress(DEV_CCTP_ATTESTER_KEY),
    cctpFeeRecipient: DEV_CCTP_FEE_RECIPIENT,
  };
  const retentionSecs = opts.retentionSecs ?? DEV_RETENTION_SECS;
  if (opts.stateDir) mkdirSync(opts.stateDir, { recursive: true });
  say('compiling the contracts');
  const contracts = compileXchainContracts();
  const started = new Map<string, DevnetChain>();
  let attester: Attester | undefined;
  const stop = async () => {
    await attester?.close();
    await Promise.all([...started.values()].map((c) => c.proc.stop()));
  };
  // allSettled, not all: a chain that fails must not leave another one's anvil running unseen.
  const outcomes = await Promise.allSettled(
    plans.map(async (plan) => {
      const anvil = await startAnvil(plan.chainId, {
        ...(opts.ports?.[plan.name] !== undefined ? { port: opts.ports[plan.name] } : {}),
        ...(opts.host ? { host: opts.host } : {}),
        ...(opts.stateDir ? { stateFile: join(opts.stateDir, `anvil-${plan.name}.json`) } : {}),
      });
      started.set(plan.name, anvil);
      const placed = await equipChain(anvil.rpcUrl, plan, contracts, roles, retentionSecs);
      const test = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) });
      for (const wallet of opts.fund ?? []) await test.setBalance({ address: getAddress(wallet), value: GAS_FUNDING_WEI });
      // Set up under automine (fast); then blocks come on a clock, as on a real chain.
      if (opts.blockTimeSecs) await test.setIntervalMining({ interval: opts.blockTimeSecs });
      say(`${plan.name} (chain ${plan.chainId}): ${placed} contracts placed, ${anvil.rpcUrl}`);
    }),
  );
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) {
    await stop();
    throw failed.reason;
  }
  const chains = new Map(plans.map((p) => [p.name, started.get(p.name)!] as const));
  // Circle's attestation API over the chains CCTP serves, each read through its own anvil.
  const cctpDomains: Record<number, AttesterDomain> = {};
  for (const plan of plans) {
    const cctp = cctpPlan(plan);
    if (cctp)
      cctpDomains[cctp.domain] = {
        rpcUrl: chains.get(plan.name)!.rpcUrl,
        messageTransmitter: CCTP_V2_MESSAGE_TRANSMITTER,
        tokenMessenger: CCTP_V2_TOKEN_MESSENGER,
      };
  }
  if (Object.keys(cctpDomains).length > 0) {
    try {
      attester = await startAttester({
        domains: cctpDomains,
        attesterKey: DEV_CCTP_ATTESTER_KEY,
        ...(opts.attesterPort !== undefined ? { port: opts.attesterPort } : {}),
        ...(opts.host ? { host: opts.host } : {}),
        rpcTimeoutMs: 5_000,
        onError: (err) => say(`cctp attester: ${err instanceof Error ? err.message : String(err)}`),
      });
    } catch (err) {
      await stop();
      throw err;
    }
    say(`cctp attester: ${attester.url} for domains ${Object.keys(cctpDomains).join(', ')}`);
  }
  return {
    chains,
    rpcUrls: formatRpcUrls(new Map([...chains].map(([name, c]) => [name, c.rpcUrl]))),
    feeRecipient: roles.feeRecipient,
    refunder: roles.refunder,
    settler: roles.settler,
    treasury: roles.treasury,
    retentionSecs,
    ...(attester ? { attestationUrl: attester.url, attester } : {}),
    stop,
  };
}
