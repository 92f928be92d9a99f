import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import type { z } from 'zod';
import type { AppName } from './images';

/**
 * What each app really reads from its environment, taken from the code so the deployment files
 * cannot drift from it: the app's env schema (apps/<app>/src/env.ts), plus the variables the shared
 * telemetry reads itself (LOG_LEVEL, OTEL_*) and every standard OTEL_* one the OpenTelemetry SDK reads.
 */
const SCHEMA_EXPORTS: Record<AppName, string> = {
  gateway: 'GatewayEnv',
  'quote-engine': 'QuoteEngineEnv',
  'price-oracle': 'PriceOracleEnv',
  'gasless-relayer': 'RelayerEnv',
  'partner-service': 'PartnerServiceEnv',
};

/**
 * An app's env schema. Tools may not import apps (module boundaries), so the schema is loaded by path
 * as data; the quote-engine's env.ts also parses the test's own environment on load, which is
 * harmless (every variable has a default).
 */
export async function appEnvSchema(root: string, app: AppName): Promise<z.ZodObject> {
  const mod = (await import(join(root, 'apps', app, 'src', 'env'))) as Record<string, unknown>;
  const schema = mod[SCHEMA_EXPORTS[app]] as z.ZodObject | undefined;
  if (!schema?.shape) throw new Error(`apps/${app}/src/env.ts exports no ${SCHEMA_EXPORTS[app]} object schema`);
  return schema;
}

export interface EnvContract {
  /** Every variable the schema declares. */
  names: Set<string>;
  /** Declared without a default and not optional: the app refuses to start without it. */
  required: string[];
  /** Declared with a default on this machine's loopback: the app would talk to itself inside a container. */
  loopbackDefaults: string[];
  /** Each declared variable's default (undefined when it has none). */
  defaults: Record<string, unknown>;
}

export function envContract(schema: z.ZodObject): EnvContract {
  const names = new Set<string>();
  const required: string[] = [];
  const loopbackDefaults: string[] = [];
  const defaults: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    names.add(name);
    const unset = field.safeParse(undefined);
    if (!unset.success) {
      required.push(name);
      continue;
    }
    defaults[name] = unset.data;
    if (/127\.0\.0\.1|localhost/.test(inspect(unset.data, { depth: 5 }))) loopbackDefaults.push(name);
  }
  return { names, required, loopbackDefaults, defaults };
}

/** Variables the shared telemetry library reads directly (`process.env['X']`), found in its source. */
export function telemetryReads(root: string): Set<string> {
  const dir = join(root, 'libs/telemetry/src');
  const names = new Set<string>();
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.ts') && !/\.(spec|int)\.ts$/.test(f))) {
    for (const m of readFileSync(join(dir, f), 'utf8').matchAll(/process\.env(?:\['([A-Z0-9_]+)'\]|\.([A-Z0-9_]+))/g))
      names.add((m[1] ?? m[2])!);
  }
  return names;
}

/** Whether a variable is one the app reads: its schema, the telemetry library, or a standard OTEL_* variable. */
export function readsVariable(contract: EnvContract, telemetry: Set<string>, name: string): boolean {
  return contract.names.has(name) || telemetry.has(name) || name.startsWith('OTEL_');
}

/**
 * What is wrong with the variables a deployment sets for an app (`set`: name → literal value, or
 * undefined when it comes from a Secret or another reference): a variable the app does not read, a
 * required one missing, a loopback default left in place, or a HOST that only loopback can reach.
 */
export function envProblems(who: string, set: Map<string, string | undefined>, contract: EnvContract, telemetry: Set<string>): string[] {
  const problems: string[] = [];
  for (const name of set.keys()) {
    if (!readsVariable(contract, telemetry, name)) problems.push(`${who} sets ${name}, which it never reads`);
  }
  for (const name of [...contract.required, ...contract.loopbackDefaults]) {
    if (!set.has(name))
      problems.push(
        `${who} does not set ${name} (${contract.required.includes(name) ? 'required' : `its default ${inspect(contract.defaults[name])} is loopback`})`,
      );
  }
  if (contract.names.has('HOST') && set.has('HOST') && set.get('HOST') !== '0.0.0.0')
    problems.push(`${who} listens on HOST=${set.get('HOST')}, not 0.0.0.0`);
  return problems;
}
