import { ORDER_EVENTS_STREAM, orderEventSubject } from './events/order-events';
import { ORDER_UPDATES_STREAM, ORDER_UPDATE_CONSUMERS, ORDER_UPDATE_SUBJECTS } from './events/order-updates';
import { OperatorBalanceRpc, SendOperatorTxRpc } from './gasless/operator';
import { GASLESS_EVENTS_STREAM, GASLESS_EVENT_SUBJECTS, GetGaslessOrderRpc } from './gasless/subjects';
import { HTTP_OPERATIONS } from './http/operations';
import {
  AdminAdjustFundingRpc,
  AdminCreateKeyRpc,
  AdminCreatePartnerRpc,
  AdminDisableKeyRpc,
  AdminIssueSessionRpc,
  AdminIssueVouchersRpc,
  AdminListFundingDepositsRpc,
  AdminSetKeyTierRpc,
  AdminShowPartnerRpc,
} from './partners/admin';
import { LedgerBalanceRpc, LedgerHoldRpc, LedgerReleaseRpc, LedgerSettleRpc } from './partners/ledger';
import { AuthenticateKeyRpc, AuthenticateSessionRpc, KEY_CHANGED_SUBJECT } from './partners/subjects';
import { PRICES_BUCKET } from './prices/price';
import { SettlementReportRpc } from './settlement/admin';
import { FetchQuoteRpc, ValueUsdRpc } from './quoting/subjects';
import { ListPriceFeedsRpc, REGISTRY_CHANGED_SUBJECT } from './registry/subjects';
import { SERVICE_NAMES, type RpcContract, type ServiceName } from './rpc';

/**
 * D14: who may publish and subscribe what on NATS, generated from the contracts so it cannot drift
 * from them. Each service and the operator tool connect as their own NATS user; the server runs
 * with exactly these permissions (tools/stack writes them into its configuration), so a header a
 * caller writes about itself is never what lets it in.
 */
export type BusUser = ServiceName | 'operator';
export const BUS_USERS: readonly BusUser[] = [...SERVICE_NAMES, 'operator'];

export interface BusPermissions {
  publish: string[];
  subscribe: string[];
  /** May answer requests it received (publish once to their reply subject, whoever sent them). */
  allowResponses: boolean;
}

/** Which service serves each subject domain (the part before `.v<N>.`). */
export const SUBJECT_DOMAINS: Readonly<Record<string, ServiceName>> = {
  quote: 'quote-engine',
  registry: 'quote-engine',
  order: 'quote-engine',
  gasless: 'gasless-relayer',
  partner: 'partner-service',
  'partner-admin': 'partner-service',
  ledger: 'partner-service',
  'settlement-admin': 'quote-engine',
};

/** The service that serves a subject; throws for a domain nobody serves. */
export function serverOf(subject: string): ServiceName {
  const domain = subject.split('.')[0] ?? '';
  const server = SUBJECT_DOMAINS[domain];
  if (!server) throw new Error(`no service serves the ${domain} domain (${subject})`);
  return server;
}

/** Request/reply operations that no HTTP operation forwards to: service to service, and the operator's. */
const BUS_ONLY_RPCS = [
  FetchQuoteRpc,
  ValueUsdRpc,
  ListPriceFeedsRpc,
  GetGaslessOrderRpc,
  SendOperatorTxRpc,
  OperatorBalanceRpc,
  AuthenticateSessionRpc,
  AuthenticateKeyRpc,
  LedgerHoldRpc,
  LedgerSettleRpc,
  LedgerReleaseRpc,
  LedgerBalanceRpc,
  AdminCreatePartnerRpc,
  AdminIssueSessionRpc,
  AdminCreateKeyRpc,
  AdminSetKeyTierRpc,
  AdminAdjustFundingRpc,
  AdminShowPartnerRpc,
  AdminDisableKeyRpc,
  AdminIssueVouchersRpc,
  AdminListFundingDepositsRpc,
  SettlementReportRpc,
];

/**
 * Every request/reply operation on the bus: the RPC each HTTP operation names (HTTP_OPERATIONS),
 * then the bus-only ones (a spec checks that each exported contract is here).
 */
export const RPC_CATALOGUE: readonly RpcContract<never, never>[] = [
  ...new Set<unknown>([...HTTP_OPERATIONS.map((op) => op.rpc), ...BUS_ONLY_RPCS]),
] as readonly RpcContract<never, never>[];

/** The bus users that may publish (call) a contract's subject. */
export function callersOf(contract: Pick<RpcContract<never, never>, 'access'>): BusUser[] {
  const a = contract.access;
  switch (a.access) {
    case 'public':
      return ['gateway', ...(a.alsoCalledBy ?? [])];
    case 'partner':
      return ['gateway'];
    case 'internal':
      return [...a.callers];
    case 'operator':
      return ['operator'];
  }
}

/** Replies to a user's requests arrive under its own prefix, which nobody else may subscribe to. */
export const inboxPrefixOf = (user: string): string => `_INBOX_${user}`;

/** Durable consumers of the order events stream, by the service that runs each. */
export const ORDER_EVENT_CONSUMERS = { quoteEngine: 'quote-engine', referrals: 'partner-service-referrals' } as const;

/** Durable consumers of the gasless relay events, by the service that runs each. */
export const GASLESS_EVENT_CONSUMERS = { orderUpdates: 'quote-engine-order-updates' } as const;

/**
 * JetStream as each service uses it. Publishing into a stream is publishing its subject (the
 * stream answers the ack to the publisher's inbox); everything else goes through `$JS.API.…`
 * subjects, each granted for one stream (and, for durables, one consumer name) only.
 */
interface StreamUse {
  stream: string;
  /** Subjects this user publishes into the stream. */
  publish?: string[];
  /** Creates the stream when missing (and reads its info, and moves it to the configured replica count). */
  create?: boolean;
  /** Reads the stream's info (opening a KV bucket). */
  info?: boolean;
  /** Durable pull consumer it creates and consumes (acks included). */
  durable?: string;
  /** Creates and deletes ordered (ephemeral) consumers delivered to its own inbox: KV watch and keys. */
  ordered?: boolean;
  /** Reads single messages (KV get). */
  get?: boolean;
}

const KV_STREAM = `KV_${PRICES_BUCKET}`;

const JETSTREAM: Partial<Record<BusUser, StreamUse[]>> = {
  // The chain watchers publish every step; the order views push each change (D13) and follow the relay events.
  'quote-engine': [
    {
      stream: ORDER_EVENTS_STREAM,
      publish: [orderEventSubject('deposited'), orderEventSubject('fulfilled'), orderEventSubject('refunded')],
      create: true,
      durable: ORDER_EVENT_CONSUMERS.quoteEngine,
    },
    { stream: ORDER_UPDATES_STREAM, publish: [ORDER_UPDATE_SUBJECTS], create: true },
    { stream: GASLESS_EVENTS_STREAM, create: true, durable: GASLESS_EVENT_CONSUMERS.orderUpdates },
    { stream: KV_STREAM, info: true, ordered: true },
  ],
  'partner-service': [
    { stream: ORDER_EVENTS_STREAM, create: true, durable: ORDER_EVENT_CONSUMERS.referrals },
    { stream: ORDER_UPDATES_STREAM, create: true, durable: ORDER_UPDATE_CONSUMERS.webhooks },
  ],
  // The only writer of prices.
  'price-oracle': [{ stream: KV_STREAM, publish: [`$KV.${PRICES_BUCKET}.>`], create: true, ordered: true, get: true }],
  'gasless-relayer': [{ stream: GASLESS_EVENTS_STREAM, publish: [GASLESS_EVENT_SUBJECTS], create: true }],
};

/** Core NATS events (no stream): who publishes and who subscribes. */
const CORE_EVENTS: { subject: string; publishers: BusUser[]; subscribers: BusUser[] }[] = [
  { subject: KEY_CHANGED_SUBJECT, publishers: ['partner-service'], subscribers: ['gateway'] },
  { subject: REGISTRY_CHANGED_SUBJECT, publishers: ['quote-engine'], subscribers: ['gateway'] },
];

/**
 * Wildcard subscriptions a user may hold beyond its own inbox: the gateway follows every order
 * update (one subscription, fanned out to the server-sent event streams it serves). An update is
 * the public order view, so reading all of them shows nothing a caller could not ask for.
 */
export const WILDCARD_SUBSCRIPTIONS: Partial<Record<BusUser, string[]>> = { gateway: [ORDER_UPDATE_SUBJECTS] };

function jetStreamSubjects(use: StreamUse): { publish: string[]; subscribe: string[] } {
  const api = '$JS.API';
  const s = use.stream;
  const publish = [...(use.publish ?? [])];
  if (use.create) publish.push(`${api}.STREAM.CREATE.${s}`, `${api}.STREAM.INFO.${s}`, `${api}.STREAM.UPDATE.${s}`);
  if (use.info) publish.push(`${api}.STREAM.INFO.${s}`);
  if (use.durable) {
    const d = use.durable;
    publish.push(
      `${api}.CONSUMER.CREATE.${s}.${d}`,
      `${api}.CONSUMER.CREATE.${s}.${d}.>`,
      `${api}.CONSUMER.DURABLE.CREATE.${s}.${d}`,
      `${api}.CONSUMER.INFO.${s}.${d}`,
      `${api}.CONSUMER.MSG.NEXT.${s}.${d}`,
      `$JS.ACK.${s}.${d}.>`,
    );
  }
  if (use.ordered) {
    publish.push(
      `${api}.CONSUMER.CREATE.${s}`,
      `${api}.CONSUMER.CREATE.${s}.>`,
      `${api}.CONSUMER.INFO.${s}.>`,
      `${api}.CONSUMER.DELETE.${s}.>`,
      `$JS.FC.${s}.>`,
    );
  }
  if (use.get) publish.push(`${api}.DIRECT.GET.${s}.>`, `${api}.STREAM.MSG.GET.${s}`);
  return { publish, subscribe: [] };
}

/** The permissions of every bus user, generated from the contracts and the tables above. */
export function busPermissions(): Record<BusUser, BusPermissions> {
  const perms = Object.fromEntries(
    BUS_USERS.map((u) => [u, { publish: new Set<string>(), subscribe: new Set<string>([`${inboxPrefixOf(u)}.>`]) }]),
  ) as Record<BusUser, { publish: Set<string>; subscribe: Set<string> }>;
  for (const contract of RPC_CATALOGUE) {
    perms[serverOf(contract.subject)].subscribe.add(contract.subject);
    for (const caller of callersOf(contract)) perms[caller].publish.add(contract.subject);
  }
  for (const e of CORE_EVENTS) {
    for (const p of e.publishers) perms[p].publish.add(e.subject);
    for (const s of e.subscribers) perms[s].subscribe.add(e.subject);
  }
  for (const [user, subjects] of Object.entries(WILDCARD_SUBSCRIPTIONS) as [BusUser, string[]][])
    for (const s of subjects) perms[user].subscribe.add(s);
  for (const [user, uses] of Object.entries(JETSTREAM) as [BusUser, StreamUse[]][]) {
    perms[user].publish.add('$JS.API.INFO');
    for (const use of uses) for (const subject of jetStreamSubjects(use).publish) perms[user].publish.add(subject);
  }
  // Only a user that serves operations answers requests (to the requester's inbox, once each).
  const servers = new Set<BusUser>(RPC_CATALOGUE.map((c) => serverOf(c.subject)));
  return Object.fromEntries(
    BUS_USERS.map((u) => [
      u,
      { publish: [...perms[u].publish].sort(), subscribe: [...perms[u].subscribe].sort(), allowResponses: servers.has(u) },
    ]),
  ) as Record<BusUser, BusPermissions>;
}
