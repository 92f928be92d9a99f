import { ORDER_EVENTS_STREAM, ORDER_EVENT_SUBJECTS } from './events/order-events';
import { ORDER_UPDATES_STREAM, ORDER_UPDATE_SUBJECTS } from './events/order-updates';
import { GASLESS_EVENTS_STREAM, GASLESS_EVENT_SUBJECTS } from './gasless/subjects';

/**
 * The JetStream streams of the system, each defined once. Every service that may create a stream
 * (its publishers and its durable consumers, whichever starts first) creates it from this
 * definition, so two of them cannot disagree; a server stream that differs from it is reported by
 * the messaging library's `ensureStream`, never silently changed. The prices KV bucket's stream is
 * managed by the KV library and is not listed here.
 */
export interface StreamDefinition {
  name: string;
  subjects: readonly string[];
  /** How long a message is kept. */
  maxAgeSecs: number;
  /** Where the server keeps the messages (none of ours is in memory only: a restart must not lose them). */
  storage: 'file' | 'memory';
}

const DAY_SECS = 24 * 3600;

/** Order steps read from the chains (deposited, fulfilled, refunded): kept 30 days for late consumers. */
export const ORDER_EVENTS_STREAM_DEF: StreamDefinition = {
  name: ORDER_EVENTS_STREAM,
  subjects: [ORDER_EVENT_SUBJECTS],
  maxAgeSecs: 30 * DAY_SECS,
  storage: 'file',
};

/** Whole order views pushed on change (D13), read by partner webhooks: kept 7 days. */
export const ORDER_UPDATES_STREAM_DEF: StreamDefinition = {
  name: ORDER_UPDATES_STREAM,
  subjects: [ORDER_UPDATE_SUBJECTS],
  maxAgeSecs: 7 * DAY_SECS,
  storage: 'file',
};

/** Relay status changes published by the gasless relayer: kept 7 days. */
export const GASLESS_EVENTS_STREAM_DEF: StreamDefinition = {
  name: GASLESS_EVENTS_STREAM,
  subjects: [GASLESS_EVENT_SUBJECTS],
  maxAgeSecs: 7 * DAY_SECS,
  storage: 'file',
};

export const STREAM_DEFINITIONS: readonly StreamDefinition[] = [
  ORDER_EVENTS_STREAM_DEF,
  ORDER_UPDATES_STREAM_DEF,
  GASLESS_EVENTS_STREAM_DEF,
];
