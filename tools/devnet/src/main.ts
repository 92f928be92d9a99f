import { type Address, type Hex, createPublicClient, http, isAddress } from 'viem';
import { fund } from './fund';
import { refundOrder } from './refund';
import { formatRpcUrls } from './rpc-urls';
import { serve } from './serve';
import { sign } from './sign';
import { type DevnetState, devnetStateFile, readDevnetState } from './state-file';

/**
 * devnet: the local chains' tool. `fund <address>` gives the address native gas and every registry
 * token on every local chain that `npm start` runs (found through its state file); output is JSON
 * on stdout, errors go to stderr (exit 1), usage errors exit 2. `serve` runs the chains (what
 * `npm start` starts when EVM_RPC_URLS is unset). `sign` signs a gasless quote as a wallet would.
 * `refund` returns an unfilled order's deposit as the routers' refunder, cancelling it first on a
 * local destination chain.
 */
const USAGE = [
  'usage: devnet fund <address>   give 100 native units and 1,000,000 of every registry token on every local chain',
  '       devnet serve            run the local chains (DEVNET_CHAINS, ANVIL_BASE_PORT, ANVIL_BLOCK_TIME) with the operator wallet equipped (FILLER_PRIVATE_KEYS) until Ctrl-C',
  '       devnet sign <key> [quote.json]   sign a gasless quote (stdin when no file) and print the SubmitGaslessOrder body',
  '       devnet refund <quote_hash> --chain <name>   refund an unfilled order deposited on that local chain (as the refunder; cancels it first on a local destination)',
  '',
].join('\n');

async function main(argv: string[]): Promise<number> {
  const [command, address, ...rest] = argv;
  if (command === 'serve') return serve(argv.slice(1));
  if (command === 'sign') return sign(argv.slice(1));
  if (command === 'refund') return refund(argv.slice(1));
  if (command !== 'fund' || address === undefined || rest.length > 0) {
    process.stderr.write(USAGE);
    return 2;
  }
  if (!isAddress(address, { strict: false })) {
    process.stderr.write(`${address} is not an EVM address\n`);
    return 2;
  }
  const running = await runningChains();
  if (!running) return 1;
  const { state, live } = running;
  const report = await fund(formatRpcUrls(live), address as Address);
  const missing = Object.keys(state.rpcUrls).filter((chain) => !live.has(chain));
  process.stdout.write(`${JSON.stringify(missing.length ? { ...report, unreachable: missing } : report, null, 2)}\n`);
  return 0;
}

/** `refund <quote_hash> --chain <name>` (in either order): prints the refund as JSON. */
async function refund(args: string[]): Promise<number> {
  const at = args.indexOf('--chain');
  const chain = at >= 0 ? args[at + 1] : undefined;
  const rest = args.filter((_, i) => at < 0 || (i !== at && i !== at + 1));
  const [quoteHash] = rest;
  if (!chain || rest.length !== 1 || !quoteHash) {
    process.stderr.write(USAGE);
    return 2;
  }
  if (!/^0x[0-9a-fA-F]{64}$/.test(quoteHash)) {
    process.stderr.write(`${quoteHash} is not a quote hash (0x and 64 hex digits)\n`);
    return 2;
  }
  const running = await runningChains();
  if (!running) return 1;
  const report = await refundOrder({ rpcUrls: running.live, chain, quoteHash: quoteHash.toLowerCase() as Hex });
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  return 0;
}

/** The local chains `npm start` runs and that answer, or undefined (said on stderr) when there are none. */
async function runningChains(): Promise<{ state: DevnetState; live: Map<string, string> } | undefined> {
  const file = devnetStateFile();
  const state = readDevnetState(file);
  if (!state) {
    process.stderr.write(`no local chain runs (${file} is missing): start them with \`npm start\`, leaving EVM_RPC_URLS unset\n`);
    return undefined;
  }
  const live = await liveChains(state);
  if (live.size === 0) {
    process.stderr.write(`no local chain answers at the URLs in ${file}: is \`npm start\` still running?\n`);
    return undefined;
  }
  return { state, live };
}

/** The chains of the state file that answer with the chain id recorded for them. */
async function liveChains(state: DevnetState): Promise<Map<string, string>> {
  const answers = await Promise.all(
    Object.entries(state.rpcUrls).map(async ([chain, url]) => {
      const client = createPublicClient({ transport: http(url, { timeout: 2000, retryCount: 0 }) });
      const id = await client.getChainId().catch(() => undefined);
      return id !== undefined && id === state.chainIds[chain] ? ([chain, url] as const) : undefined;
    }),
  );
  return new Map(answers.filter((a) => a !== undefined));
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`devnet: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
