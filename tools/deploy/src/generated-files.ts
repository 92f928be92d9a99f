import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clusterConfig, singleServerConfig } from './nats-config';
import { postgresProvisioning, redisProvisioning } from './provisioning';

/** The configuration files k8s/ reads into ConfigMaps (kustomize reads nothing outside its folder). */
export const CONFIG_FILES = ['quoting.json', 'prices.json', 'partners.json', 'registry.json'] as const;

/**
 * Every committed file tools/deploy generates, path (from the root) → content: the NATS
 * configurations from the contracts' bus permissions, the provisioning of the databases' roles and
 * of Redis' users (D17), and k8s/base's copies of config/ and of the
 * Collector's configuration (ops/otel/collector.yaml). The drift spec compares each with the
 * committed file; `generate.js` writes them.
 */
export function generatedFiles(root: string): Record<string, string> {
  const files: Record<string, string> = {
    'k8s/base/nats/nats.conf': clusterConfig(),
    'docker/nats.conf': singleServerConfig(),
    'k8s/provision/postgres.sql': postgresProvisioning(),
    'k8s/provision/redis-users.acl': redisProvisioning(),
  };
  for (const f of CONFIG_FILES) files[`k8s/base/config/${f}`] = readFileSync(join(root, 'config', f), 'utf8');
  files['k8s/base/otel-collector/collector.yaml'] = readFileSync(join(root, 'ops/otel/collector.yaml'), 'utf8');
  return files;
}
