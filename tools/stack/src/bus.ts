import { randomBytes } from 'node:crypto';
import { BUS_USERS, type BusPermissions, type BusUser, busPermissions, inboxPrefixOf } from '@xchain/contracts';

/**
 * The NATS users of one run (D14): every service and the operator with the permissions generated
 * from the contracts, each with a fresh random password, plus any test users a suite declares
 * (explicitly, with only what it needs). The local stack, the end-to-end stacks and the
 * integration suites all run NATS with these, so nothing is tested against an open bus.
 */
export interface NatsUser {
  user: string;
  password: string;
  permissions: BusPermissions;
}

/** What a suite asks for a test user: the subjects it publishes and subscribes (its own inbox is added). */
export interface TestUserSpec {
  publish?: string[];
  subscribe?: string[];
  allowResponses?: boolean;
}

export interface Bus {
  users: NatsUser[];
  /** The variables a process needs to connect as `user` (NATS_USER, NATS_PASSWORD). */
  envFor(user: string): { NATS_USER: string; NATS_PASSWORD: string };
  /** User and password, for a direct connection (connectNats). */
  credentials(user: string): { user: string; password: string };
}

export function newBus(testUsers: Record<string, TestUserSpec> = {}): Bus {
  const generated = busPermissions();
  const users: NatsUser[] = BUS_USERS.map((u: BusUser) => ({ user: u, password: secret(), permissions: generated[u] }));
  for (const [user, spec] of Object.entries(testUsers)) {
    if (users.some((u) => u.user === user)) throw new Error(`test user ${user} would replace a real bus user`);
    users.push({
      user,
      password: secret(),
      permissions: {
        publish: spec.publish ?? [],
        subscribe: [`${inboxPrefixOf(user)}.>`, ...(spec.subscribe ?? [])],
        allowResponses: spec.allowResponses ?? false,
      },
    });
  }
  const credentials = (user: string) => {
    const found = users.find((u) => u.user === user);
    if (!found) throw new Error(`no NATS user ${user}`);
    return { user: found.user, password: found.password };
  };
  return {
    users,
    credentials,
    envFor: (user) => {
      const c = credentials(user);
      return { NATS_USER: c.user, NATS_PASSWORD: c.password };
    },
  };
}

function secret(): string {
  return randomBytes(24).toString('base64url');
}

/**
 * The `authorization` block of nats-server's configuration (its syntax accepts JSON values).
 * An empty allow list is written as a deny of everything, so "may publish nothing" stays so.
 */
export function natsAuthorization(users: NatsUser[]): string {
  const list = (allow: string[]) => (allow.length > 0 ? { allow } : { deny: ['>'] });
  const entries = users.map((u) =>
    JSON.stringify({
      user: u.user,
      password: u.password,
      permissions: {
        publish: list(u.permissions.publish),
        subscribe: list(u.permissions.subscribe),
        ...(u.permissions.allowResponses ? { allow_responses: true } : {}),
      },
    }),
  );
  return `authorization {\n  users: [\n    ${entries.join(',\n    ')}\n  ]\n}\n`;
}
