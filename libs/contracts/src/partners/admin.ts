import { z } from 'zod';
import { defineRpc } from '../rpc';
import { ApiKeySchema, CreatedKeySchema, FundingEntryDepositSchema, VoucherSchema } from '../http/schemas/partner';
import { AmountString, Rfc3339, Uint64Input, Uint64String } from '../wire';

/**
 * Operator actions (the `partner-admin` command-line tool). Only the operator's NATS user may
 * publish them (D14); the gateway's user cannot, so no HTTP request can reach them.
 */
const OPERATOR = { access: 'operator' } as const;
const Email = z.string().email().max(254);

export const AdminPartnerSchema = z.object({ partner_id: z.string(), email: z.string(), max_keys: Uint64String, created_at: Rfc3339 });

export const AdminCreatePartnerRpc = defineRpc(
  'partner-admin.v1.create_partner',
  z.object({ email: Email, max_keys: z.number().int().min(1).max(100).optional() }),
  AdminPartnerSchema,
  OPERATOR,
);
export const AdminIssueSessionRpc = defineRpc(
  'partner-admin.v1.issue_session',
  z.object({
    email: Email,
    ttl_secs: z
      .number()
      .int()
      .min(1)
      .max(90 * 24 * 3600)
      .optional(),
  }),
  z.object({ session_id: z.string(), token: z.string(), expires_at: Rfc3339 }),
  OPERATOR,
);
export const AdminCreateKeyRpc = defineRpc(
  'partner-admin.v1.create_key',
  z.object({ email: Email, name: z.string().min(1).max(100), tier: z.string().optional() }),
  CreatedKeySchema,
  OPERATOR,
);
export const AdminSetKeyTierRpc = defineRpc(
  'partner-admin.v1.set_key_tier',
  z.object({ key_id: z.string(), tier: z.string(), points_per_min: z.number().int().min(1).max(1_000_000).optional() }),
  ApiKeySchema,
  OPERATOR,
);
export const LedgerEntrySchema = z.object({
  id: z.string(),
  kind: z.string(),
  delta_usd_micros: z.string(),
  balance_usd_micros: Uint64String,
  reason: z.string(),
  created_at: Rfc3339,
});
/** Credits (or debits) the funding balance. A credit may name the token and amount received. */
export const AdminAdjustFundingRpc = defineRpc(
  'partner-admin.v1.adjust_funding',
  z.object({
    email: Email,
    direction: z.enum(['credit', 'debit']),
    usd_micros: Uint64Input,
    reason: z.string().min(1).max(500),
    token: z.string().optional(),
    amount: AmountString.optional(),
  }),
  LedgerEntrySchema,
  OPERATOR,
);
/** A partner as the operator sees it: account, keys, balance and its latest ledger entries. */
export const AdminShowPartnerRpc = defineRpc(
  'partner-admin.v1.show_partner',
  z.object({ email: Email, entries: z.number().int().min(0).max(1000).optional() }),
  AdminPartnerSchema.extend({
    keys: z.array(ApiKeySchema),
    balance_usd_micros: Uint64String,
    active_sessions: Uint64String,
    ledger: z.array(LedgerEntrySchema.omit({ balance_usd_micros: true })),
  }),
  OPERATOR,
);
/** Disables any partner's key (a leaked key, an abusive integration). */
export const AdminDisableKeyRpc = defineRpc('partner-admin.v1.disable_key', z.object({ key_id: z.string() }), ApiKeySchema, OPERATOR);
/** Issues one voucher per (referrer, chain, token) over every accrual not yet vouchered. */
export const AdminIssueVouchersRpc = defineRpc(
  'partner-admin.v1.issue_vouchers',
  z.object({ email: Email }),
  z.object({ vouchers: z.array(VoucherSchema) }),
  OPERATOR,
);

// The fields of the deposit a funding entry names, in the order the operator's view lists them.
const { price_e18, price_publish_time, ...fundedEvent } = FundingEntryDepositSchema.shape;

/** A deposit seen on the funding router (`Funded` event), as the operator sees it. */
export const FundingDepositSchema = z.object({
  id: z.string(),
  ...fundedEvent,
  /** `credited`: valued and credited to the partner that built the funding; `unmatched`: credited to nobody. */
  status: z.enum(['credited', 'unmatched']),
  detail: z.string().optional(),
  email: z.string().optional(),
  usd_micros: Uint64String.optional(),
  price_e18,
  price_publish_time,
  ledger_entry_id: z.string().optional(),
  created_at: Rfc3339,
});
export type FundingDeposit = z.output<typeof FundingDepositSchema>;
/** The newest funding deposits, optionally only one partner's or only those in one status. */
export const AdminListFundingDepositsRpc = defineRpc(
  'partner-admin.v1.list_funding_deposits',
  z.object({
    email: Email.optional(),
    status: z.enum(['credited', 'unmatched']).optional(),
    limit: z.number().int().min(1).max(1000).optional(),
  }),
  z.object({ deposits: z.array(FundingDepositSchema) }),
  OPERATOR,
);
