import { z } from 'zod';
import { AmountString, Rfc3339, Uint32Input, Uint64String } from '../../wire';

export const ApiKeySchema = z
  .object({
    id: z.string(),
    key: z.string().meta({ description: 'Non-secret prefix of the key.' }),
    name: z.string(),
    tier: z.string(),
    points_per_min: Uint64String,
    disabled: z.boolean(),
    created_at: Rfc3339,
  })
  .meta({ id: 'ApiKey' });

export const PartnerSchema = z
  .object({
    email: z.string(),
    keys: z.array(ApiKeySchema),
    max_keys: Uint64String,
    session_id: z.string().optional().meta({
      description: 'The id of the session that asked (its bearer token): RevokePartnerSession with it signs that session out.',
    }),
  })
  .meta({ id: 'Partner' });

export const TokenRefSchema = z
  .object({ chain: z.string(), chain_id: Uint64String, address: z.string(), symbol: z.string(), decimals: z.number().int() })
  .meta({ id: 'TokenRef' });

export const PartnerFundingSchema = z
  .object({
    balance_usd_micros: z.string(),
    chain: z.string(),
    chain_id: Uint64String,
    router_address: z.string(),
    tokens: z.array(TokenRefSchema),
    balances: z.array(z.object({ token: TokenRefSchema, amount: AmountString, usd_micros: z.string() })),
  })
  .meta({ id: 'PartnerFunding' });

export const BuildPartnerFundingRequest = z
  .object({ token: z.string().meta({ description: 'Funding token address.' }), amount: AmountString })
  .meta({ id: 'BuildPartnerFundingRequest' });

export const FundingTransactionSchema = z
  .object({
    funding_id: z.string(),
    chain: z.string(),
    chain_id: Uint64String,
    router_address: z.string(),
    calldata: z.string(),
    value: AmountString,
  })
  .meta({ id: 'FundingTransaction' });

export const VoucherSchema = z
  .object({
    id: z.string(),
    chain: z.string(),
    chain_id: Uint64String,
    router_address: z.string(),
    token: z.string(),
    referrer: z.string(),
    amount: AmountString,
    signature: z.string(),
    calldata: z.string(),
    redeemed: z.boolean(),
    redeem_tx: z.string().optional(),
    created_at: Rfc3339,
    redeemed_at: Rfc3339.optional(),
    token_symbol: z.string(),
    decimals: z.number().int(),
  })
  .meta({ id: 'Voucher' });

export const BuildVoucherRedemptionRequest = z
  .object({ voucher_id: z.string(), payer: z.string() })
  .meta({ id: 'BuildVoucherRedemptionRequest' });

export const ReferralGroupSchema = z
  .object({
    referrer: z.string(),
    chain: z.string(),
    chain_id: Uint64String,
    token: z.string(),
    token_symbol: z.string(),
    decimals: z.number().int(),
    amount: AmountString,
    count: Uint64String,
  })
  .meta({ id: 'ReferralGroup' });

export const ReferralsQuery = z.object({
  cursor: z.string().optional().meta({ description: 'Opaque cursor from a previous page.' }),
  page_size: Uint32Input.optional().meta({ description: 'Groups per page (default 50, at most 200).' }),
});

/** New keys get the partner's default tier; the operator changes tiers. */
export const CreateKeyRequest = z.object({ name: z.string().trim().min(1).max(100) }).meta({ id: 'CreateKeyRequest' });
export const CreatedKeySchema = z
  .object({ key: ApiKeySchema, secret: z.string().meta({ description: 'The full API key. Shown once; stored only as a hash.' }) })
  .meta({ id: 'CreatedKey' });

export const IdPathParam = z.object({ id: z.string() });

/** The on-chain deposit behind a funding credit (a `Funded` event of the funding router). */
export const FundingEntryDepositSchema = z
  .object({
    chain: z.string(),
    tx_hash: z.string(),
    log_index: z.number().int(),
    block_number: Uint64String,
    funding_id: z.string(),
    token: z.string(),
    payer: z.string(),
    amount: AmountString.meta({ description: 'What arrived, in base units of `token`.' }),
    price_e18: z.string().optional().meta({ description: 'USD price of one whole token × 10^18 the credit was valued at.' }),
    price_publish_time: z.number().int().optional(),
  })
  .meta({ id: 'FundingEntryDeposit' });

export const FundingEntrySchema = z
  .object({
    id: z.string(),
    kind: z.enum(['credit', 'debit', 'hold', 'settle', 'release']).meta({
      description:
        '`credit`/`debit`: deposits and operator adjustments; `hold`: relay gas reserved for a sponsored quote; `settle`: the hold charged (what is not charged comes back); `release`: the hold returned.',
    }),
    delta_usd_micros: z.string().meta({ description: 'Signed change of the available balance, USD micros.' }),
    amount_usd_micros: Uint64String,
    balance_usd_micros: z.string().meta({ description: 'Available balance right after this entry.' }),
    reason: z.string(),
    quote_hash: z.string().optional(),
    chain: z.string().optional(),
    token: z.string().optional(),
    token_amount: AmountString.optional().meta({ description: 'Base units of `token` the entry names.' }),
    deposit: FundingEntryDepositSchema.optional(),
    created_at: Rfc3339,
  })
  .meta({ id: 'FundingEntry' });

export const FundingEntriesQuery = z.object({
  cursor: z.string().optional().meta({ description: 'Opaque cursor from a previous page.' }),
  page_size: Uint32Input.optional().meta({ description: 'Entries per page (default 50, at most 200).' }),
});

export const FundingEntriesResponse = z
  .object({ entries: z.array(FundingEntrySchema), next_cursor: z.string() })
  .meta({ id: 'ListPartnerFundingEntriesResponse' });
