import { z } from 'zod';
import { defineRpc } from '../rpc';
import {
  ApiKeySchema,
  BuildPartnerFundingRequest,
  BuildVoucherRedemptionRequest,
  CreateKeyRequest,
  CreatedKeySchema,
  FundingEntriesQuery,
  FundingEntriesResponse,
  FundingTransactionSchema,
  PartnerFundingSchema,
  PartnerSchema,
  ReferralGroupSchema,
  ReferralsQuery,
  VoucherSchema,
} from '../http/schemas/partner';
import { Rfc3339 } from '../wire';

/**
 * partner-service over NATS. The gateway never sends a secret: it hashes a bearer token or an API
 * key (sha256, hex) and asks who it belongs to. Partner operations act for the partner named by
 * the `x-caller` header (a `partner_session` caller), never for one named in the body; only the
 * gateway may publish them (bus permissions generated from the `access` below).
 */
const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

export const AuthenticateSessionRpc = defineRpc(
  'partner.v1.authenticate_session',
  z.object({ token_hash: Sha256Hex }),
  z.object({ partner_id: z.string(), session_id: z.string(), expires_at: Rfc3339 }),
  { access: 'internal', callers: ['gateway'] },
);

export const ApiKeyIdentitySchema = z.object({
  key_id: z.string(),
  partner_id: z.string(),
  tier: z.string(),
  points_per_min: z.number().int().nonnegative(),
  disabled: z.boolean(),
});
export type ApiKeyIdentity = z.infer<typeof ApiKeyIdentitySchema>;

/** Unknown keys answer NOT_FOUND; disabled keys are returned with `disabled: true`. */
export const AuthenticateKeyRpc = defineRpc('partner.v1.authenticate_key', z.object({ key_hash: Sha256Hex }), ApiKeyIdentitySchema, {
  access: 'internal',
  callers: ['gateway'],
});

const Empty = z.object({});
const PARTNER = { access: 'partner' } as const;
export const GetPartnerRpc = defineRpc('partner.v1.get_partner', Empty, PartnerSchema, PARTNER);
export const GetPartnerFundingRpc = defineRpc('partner.v1.get_funding', Empty, PartnerFundingSchema, PARTNER);
export const BuildPartnerFundingRpc = defineRpc('partner.v1.build_funding', BuildPartnerFundingRequest, FundingTransactionSchema, PARTNER);
export const ListPartnerVouchersRpc = defineRpc('partner.v1.list_vouchers', Empty, z.object({ vouchers: z.array(VoucherSchema) }), PARTNER);
export const BuildVoucherRedemptionRpc = defineRpc(
  'partner.v1.build_voucher_redemption',
  BuildVoucherRedemptionRequest,
  z.object({ tx_base64: z.string() }),
  PARTNER,
);
export const GetPartnerReferralsRpc = defineRpc(
  'partner.v1.get_referrals',
  ReferralsQuery,
  z.object({ groups: z.array(ReferralGroupSchema), next_cursor: z.string() }),
  PARTNER,
);
export const RevokePartnerSessionRpc = defineRpc('partner.v1.revoke_session', z.object({ id: z.string() }), Empty, PARTNER);
export const CreatePartnerKeyRpc = defineRpc('partner.v1.create_key', CreateKeyRequest, CreatedKeySchema, PARTNER);
export const DisablePartnerKeyRpc = defineRpc('partner.v1.disable_key', z.object({ id: z.string() }), ApiKeySchema, PARTNER);
/** The caller's own funding ledger, newest first, with the deposit behind each on-chain credit. */
export const ListPartnerFundingEntriesRpc = defineRpc(
  'partner.v1.list_funding_entries',
  FundingEntriesQuery,
  FundingEntriesResponse,
  PARTNER,
);

/**
 * Published (core NATS, no reply) when a key is disabled or its tier changes, so gateways drop
 * their cached lookup at once; the cache TTL bounds staleness if this message is missed.
 */
export const KEY_CHANGED_SUBJECT = 'partner.v1.events.key_changed';
export const KeyChangedEventSchema = z.object({ key_id: z.string(), key_hash: Sha256Hex });
export type KeyChangedEvent = z.infer<typeof KeyChangedEventSchema>;
