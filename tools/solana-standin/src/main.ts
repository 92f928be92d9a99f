import { startDevSolana } from './dev-solana';

/**
 * `node dist/tools/solana-standin/src/main.js serve [--port N] [--until-stdin-closes]`: the local
 * stand-in alone, set up as `npm start` sets it up (registry mints, vault, fee payer, dev filler
 * and wallet), until SIGINT or SIGTERM (or, with the flag, until the parent closes its stdin).
 */
const USAGE = 'usage: solana-standin serve [--port N] [--until-stdin-closes]   (default port: SOLANA_STANDIN_PORT or 8899)\n';

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  const at = rest.indexOf('--port');
  const raw = at >= 0 ? rest[at + 1] : (process.env['SOLANA_STANDIN_PORT'] ?? '8899');
  const port = Number(raw);
  if (command !== 'serve' || !Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(USAGE);
    return 2;
  }
  const dev = await startDevSolana({ port, onProgress: (line) => console.log(`[solana-standin] ${line}`) });
  console.log(
    `[solana-standin] ready: SOLANA_RPC_URL=${dev.serviceEnv['SOLANA_RPC_URL']} SOLANA_FILLER_ACCOUNTS=${dev.serviceEnv['SOLANA_FILLER_ACCOUNTS']}`,
  );
  return new Promise<number>((resolve) => {
    const stop = (why: string) => {
      console.log(`[solana-standin] ${why}: stopping`);
      void dev.stop().then(() => resolve(0));
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
    if (rest.includes('--until-stdin-closes')) {
      process.stdin.once('close', () => stop('parent gone'));
      process.stdin.resume();
    }
  });
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`solana-standin: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
