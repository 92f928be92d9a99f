import { join } from 'node:path';
import { type RunningPrometheus, startPrometheus } from './prometheus';
import { SERVICES, type ServiceSpec } from './services';

/**
 * `PROMETHEUS=1 npm start`: a real Prometheus (Debian's package) on 127.0.0.1:`PROMETHEUS_PORT`
 * (default 9090) scraping every service of the local stack every 5 s, with the alert rules loaded.
 * Its data lives under `<DATA_DIR>/prometheus`. Without PROMETHEUS set, nothing is started.
 */
export async function startDevPrometheus(
  dataDir: string,
  ports: Readonly<Record<ServiceSpec['name'], number>>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningPrometheus | undefined> {
  const wanted = env['PROMETHEUS'];
  if (wanted === undefined || wanted === '' || wanted === '0' || wanted === 'false') return undefined;
  const raw = env['PROMETHEUS_PORT'] ?? '9090';
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`PROMETHEUS_PORT=${raw} is not a port number`);
  const targets = Object.fromEntries(SERVICES.map((s) => [s.name, ports[s.name]]));
  return startPrometheus({
    dir: join(dataDir, 'prometheus'),
    port,
    targets,
    scrapeIntervalSecs: 5,
    logFile: join(dataDir, 'logs', 'prometheus.log'),
  });
}
