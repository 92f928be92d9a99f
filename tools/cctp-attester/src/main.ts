import { attesterSettings } from './settings';
import { startAttester } from './start-attester';

/**
 * `node dist/tools/cctp-attester/src/main.js`: the CCTP attestation stand-in alone, configured
 * from the environment (settings.ts), until SIGINT or SIGTERM.
 */
async function main(): Promise<number> {
  const settings = attesterSettings(process.env);
  const attester = await startAttester({ ...settings, onError: (err) => console.error(`[cctp-attester] ${String(err)}`) });
  console.log(
    `[cctp-attester] ready: ${attester.url} signing as ${attester.attester} for domains ${Object.keys(settings.domains).join(', ')}`,
  );
  return new Promise<number>((resolve) => {
    const stop = (why: string) => {
      console.log(`[cctp-attester] ${why}: stopping`);
      void attester.close().then(() => resolve(0));
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`cctp-attester: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
