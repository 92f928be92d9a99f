import { z } from 'zod';
import { OrderStatusSchema } from '../http/schemas/order-status';
import { defineRpc } from '../rpc';
import { Rfc3339, Uint32Input } from '../wire';

/**
 * Partner webhooks (D13): one HTTPS endpoint per partner that receives an `order.updated` event
 * for every change of an order quoted with the partner's API keys. Every delivery is signed with
 * the partner's secret (shown once, by the PUT that set it) and retried with exponential backoff
 * for 24 hours; the partner reads each delivery's outcome.
 */
const PARTNER = { access: 'partner' } as const;

/** Longest URL accepted (the common limit of browsers and proxies). */
export const WEBHOOK_URL_MAX_CHARS = 2048;

/**
 * What the request schema itself takes at most: well above the URL rule, so a URL that is merely too
 * long is refused by that rule, field by field, with INVALID_WEBHOOK_URL like every other URL rule.
 */
const WEBHOOK_URL_SCHEMA_MAX = 4 * WEBHOOK_URL_MAX_CHARS;

export const SetWebhookRequest = z
  .object({
    url: z
      .string()
      .min(1)
      .max(WEBHOOK_URL_SCHEMA_MAX)
      .meta({
        description: `HTTPS endpoint that receives the events, at most ${WEBHOOK_URL_MAX_CHARS} characters (INVALID_WEBHOOK_URL). No credentials in the URL; a host that resolves to a private address is refused at delivery time.`,
      }),
  })
  .meta({ id: 'SetWebhookRequest' });

export const WebhookSchema = z.object({ url: z.string(), created_at: Rfc3339 }).meta({ id: 'Webhook' });

export const CreatedWebhookSchema = z
  .object({
    url: z.string(),
    secret: z.string().meta({
      description:
        'Signing secret (`whsec_…`). Shown once; a new PUT replaces it. The HMAC-SHA256 key is this string as UTF-8 bytes, whole.',
    }),
    created_at: Rfc3339,
  })
  .meta({ id: 'CreatedWebhook' });

export const WebhookDeliveryStatus = z.enum(['pending', 'delivered', 'failed']);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatus>;

export const WebhookDeliverySchema = z
  .object({
    id: z.string(),
    event_id: z
      .string()
      .meta({ description: 'The `id` of the event delivered (also the `x-xchain-event-id` header): the deduplication key.' }),
    quote_hash: z.string(),
    version: z.number().int().meta({ description: "The order view's version the event carries (1, 2, …)." }),
    status: WebhookDeliveryStatus.meta({
      description:
        '`pending`: not acknowledged yet (retried at `next_attempt_at`); `delivered`: answered 2xx; `failed`: no 2xx within the retry window, or the webhook was removed.',
    }),
    attempts: z.number().int(),
    last_status_code: z.number().int().optional().meta({ description: 'HTTP status of the last answer (absent when there was none).' }),
    last_error: z.string().optional().meta({ description: 'Why the last attempt did not deliver.' }),
    next_attempt_at: Rfc3339.optional(),
    created_at: Rfc3339,
    delivered_at: Rfc3339.optional(),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDelivery = z.output<typeof WebhookDeliverySchema>;

export const WebhookDeliveriesQuery = z.object({
  cursor: z.string().optional().meta({ description: 'Opaque cursor from a previous page.' }),
  page_size: Uint32Input.optional().meta({ description: 'Deliveries per page (default 50, at most 200).' }),
});

export const WebhookDeliveriesResponse = z
  .object({ deliveries: z.array(WebhookDeliverySchema), next_cursor: z.string() })
  .meta({ id: 'ListWebhookDeliveriesResponse' });

/**
 * What the partner's endpoint receives: `POST` with `content-type: application/json`,
 * `x-xchain-event-id: <id>` and `x-xchain-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.
 * `data` is the order view of `GET /v1/orders/{quote_hash}` as of `version`.
 */
export const WebhookEventSchema = z.object({
  id: z.string(),
  type: z.literal('order.updated'),
  created_at: Rfc3339,
  version: z.number().int().positive(),
  data: OrderStatusSchema,
});
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;

export const WEBHOOK_EVENT_ID_HEADER = 'x-xchain-event-id';
export const WEBHOOK_SIGNATURE_HEADER = 'x-xchain-signature';

const Empty = z.object({});
export const SetPartnerWebhookRpc = defineRpc('partner.v1.set_webhook', SetWebhookRequest, CreatedWebhookSchema, PARTNER);
/** NOT_FOUND (WEBHOOK_NOT_FOUND) when none is set. */
export const GetPartnerWebhookRpc = defineRpc('partner.v1.get_webhook', Empty, WebhookSchema, PARTNER);
/** Removing no webhook is fine (`{}`); pending deliveries stop (they end `failed`). */
export const DeletePartnerWebhookRpc = defineRpc('partner.v1.delete_webhook', Empty, Empty, PARTNER);
export const ListWebhookDeliveriesRpc = defineRpc(
  'partner.v1.list_webhook_deliveries',
  WebhookDeliveriesQuery,
  WebhookDeliveriesResponse,
  PARTNER,
);
