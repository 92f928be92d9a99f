import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { BUS_USERS, ORDER_UPDATES_STREAM, ORDER_UPDATE_SUBJECTS } from '@xchain/contracts';
import { connectNats, type NatsConnection } from '@xchain/messaging';
import { type Managed, ROOT, freePort, httpOk, launch, waitFor, until } from '@xchain/stack';
import { K8S_CLUSTER, ROUTE_PASSWORD_VAR, passwordVar, routeVar } from './nats-config';

/**
 * The committed k8s/base/nats/nats.conf run as the StatefulSet runs it: three nats-servers, each
 * with its POD_NAME, the route URLs and every password in its environment (here on loopback ports
 * given on the command line, and a temporary store instead of the pod's volume). They must form one
 * JetStream cluster, take only the generated users, and carry a request across members.
 */
jest.setTimeout(120_000);

const secret = () => `p${randomBytes(24).toString('hex')}`;
const passwords = Object.fromEntries(BUS_USERS.map((u) => [u, secret()])) as Record<string, string>;
const routePassword = secret();

describe('the generated NATS cluster configuration', () => {
  let dir: string;
  const servers: Managed[] = [];
  const ports: { client: number; cluster: number; monitor: number }[] = [];
  const connections: NatsConnection[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nats-cluster-'));
    for (let i = 0; i < K8S_CLUSTER.replicas; i++)
      ports.push({ client: await freePort(), cluster: await freePort(), monitor: await freePort() });
    const committed = readFileSync(join(ROOT, 'k8s/base/nats/nats.conf'), 'utf8');
    const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], [ROUTE_PASSWORD_VAR]: routePassword };
    for (const u of BUS_USERS) env[passwordVar(u)] = passwords[u];
    ports.forEach((p, i) => (env[routeVar(i)] = `nats-route://route:${routePassword}@127.0.0.1:${p.cluster}`));
    for (let i = 0; i < K8S_CLUSTER.replicas; i++) {
      const store = join(dir, `nats-${i}`);
      mkdirSync(store);
      const config = join(dir, `nats-${i}.conf`);
      expect(committed).toContain(`store_dir: "${K8S_CLUSTER.storeDir}"`);
      writeFileSync(config, committed.replace(`store_dir: "${K8S_CLUSTER.storeDir}"`, `store_dir: ${JSON.stringify(store)}`), {
        mode: 0o600,
      });
      const p = ports[i]!;
      servers.push(
        launch(
          `nats-${i}`,
          'nats-server',
          ['-c', config, '-a', '127.0.0.1', '-p', String(p.client), '-m', String(p.monitor), '--cluster', `nats://127.0.0.1:${p.cluster}`],
          {
            env: { ...env, POD_NAME: `nats-${i}` },
            logFile: join(dir, `nats-${i}.log`),
          },
        ),
      );
    }
    // The StatefulSet's startup probe: /healthz answers 200 once JetStream is current with the cluster.
    await Promise.all(servers.map((s, i) => waitFor(s.name, () => httpOk(`http://127.0.0.1:${ports[i]!.monitor}/healthz`), 60_000, s)));
  });

  afterAll(async () => {
    for (const nc of connections) await nc.close().catch(() => undefined);
    await Promise.all(servers.map((s) => s.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  const as = async (user: string, member: number) => {
    const nc = await connectNats({
      url: `nats://127.0.0.1:${ports[member]!.client}`,
      name: user,
      user,
      password: passwords[user]!,
      connectTimeoutMs: 5000,
    });
    connections.push(nc);
    return nc;
  };

  it('forms one JetStream cluster of three members with a leader', async () => {
    const jsz = (await (await fetch(`http://127.0.0.1:${ports[0]!.monitor}/jsz`)).json()) as any;
    expect(jsz.meta_cluster).toMatchObject({
      name: K8S_CLUSTER.clusterName,
      cluster_size: K8S_CLUSTER.replicas,
      leader: expect.stringMatching(/^nats-\d$/),
    });
    const routez = (await (await fetch(`http://127.0.0.1:${ports[1]!.monitor}/routez`)).json()) as any;
    expect(routez.num_routes).toBe(K8S_CLUSTER.replicas - 1);
  });

  it('keeps a stream on all three members, created by the user allowed to', async () => {
    const jsm = await jetstreamManager(await as('quote-engine', 0));
    await jsm.streams.add({ name: ORDER_UPDATES_STREAM, subjects: [ORDER_UPDATE_SUBJECTS], num_replicas: 3 });
    const info = await jsm.streams.info(ORDER_UPDATES_STREAM);
    expect(info.cluster?.leader).toMatch(/^nats-\d$/);
    expect(info.cluster?.replicas).toHaveLength(2);
  });

  it('carries a request from one member to a service on another, within the generated permissions', async () => {
    const server = await as('partner-service', 1);
    const sub = server.subscribe('ledger.v1.balance', { callback: (_err, msg) => void msg.respond('{"ok":true}') });
    await server.flush();
    // Subscription interest reaches the other members through the routes.
    const client = await as('quote-engine', 2);
    let reply = '';
    await until(
      'reply across members',
      async () => {
        reply = (await client.request('ledger.v1.balance', '{}', { timeout: 1000 })).string();
        return true;
      },
      { timeoutMs: 10_000, everyMs: 100 },
    );
    expect(reply).toBe('{"ok":true}');
    sub.unsubscribe();
  });

  it('refuses a user with a wrong password, and anyone not generated', async () => {
    const url = `127.0.0.1:${ports[2]!.client}`;
    await expect(
      connect({ servers: url, user: 'gateway', pass: `${passwords['gateway']}x`, reconnect: false, timeout: 3000 }),
    ).rejects.toThrow(/Authorization/i);
    await expect(connect({ servers: url, user: 'route', pass: routePassword, reconnect: false, timeout: 3000 })).rejects.toThrow(
      /Authorization/i,
    );
  });
});
