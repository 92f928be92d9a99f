import { join } from 'node:path';
import { RpcError } from '@xchain/contracts';
import { RpcClient, connectNats } from '@xchain/messaging';
import { CREDENTIAL_FILES, ROOT, credentialsDir, readSecretFile } from '@xchain/stack';
import { COMMANDS, compact, parseFlags } from './commands';

/**
 * partner-admin: the operator's tool. It talks to the partner-service (and, for `settlement`, the
 * quote-engine) over NATS (NATS_URL) as the
 * `operator` NATS user (NATS_USER, NATS_PASSWORD), the only user allowed on operator subjects
 * (D14), never to its tables. Without NATS_PASSWORD it reads the password that `npm start` wrote
 * for this run (`<DATA_DIR>/credentials/nats-operator.password`, 0600; D17). Output is JSON on
 * stdout; errors go to stderr.
 */
async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(
      `usage: partner-admin <command> [flags]\n${Object.entries(COMMANDS)
        .map(([n, c]) => `  ${n} ${c.usage}`)
        .join('\n')}\n`,
    );
    return 2;
  }
  let request: unknown;
  try {
    request = compact(command.request(parseFlags(rest)));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  const localFile = join(credentialsDir(process.env['DATA_DIR'] ?? join(ROOT, '.data')), CREDENTIAL_FILES.natsOperator);
  const password = process.env['NATS_PASSWORD'] || readSecretFile(localFile);
  if (!password) {
    process.stderr.write(
      `NATS_PASSWORD is required: the operator connects to NATS as its own user (NATS_USER, default operator); a running npm start leaves it in ${localFile}\n`,
    );
    return 2;
  }
  const nc = await connectNats({
    url: process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
    name: 'partner-admin',
    connectTimeoutMs: 5000,
    user: process.env['NATS_USER'] || 'operator',
    password,
  });
  try {
    const rpc = new RpcClient(nc, Number(process.env['PARTNER_ADMIN_TIMEOUT_MS'] ?? 10_000));
    const result = await rpc.call(command.contract, request as never);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    process.stderr.write(err instanceof RpcError ? `${JSON.stringify(err.status)}\n` : `${(err as Error).message}\n`);
    return 1;
  } finally {
    await nc.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`partner-admin: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
