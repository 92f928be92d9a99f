-- CreateTable
CREATE TABLE "partners" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "max_keys" INTEGER NOT NULL DEFAULT 5,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "partners_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" TEXT NOT NULL,
    "partner_id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "partner_id" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tier" TEXT NOT NULL,
    "points_per_min" INTEGER NOT NULL,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "disabled_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" BIGSERIAL NOT NULL,
    "partner_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "delta_usd_micros" BIGINT NOT NULL,
    "amount_usd_micros" BIGINT NOT NULL,
    "quote_hash" TEXT,
    "reason" TEXT NOT NULL,
    "chain" TEXT,
    "token" TEXT,
    "token_amount" DECIMAL(78,0),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "funding_intents" (
    "id" TEXT NOT NULL,
    "partner_id" TEXT NOT NULL,
    "chain" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "amount" DECIMAL(78,0) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "funding_intents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "referral_accruals" (
    "id" BIGSERIAL NOT NULL,
    "partner_id" TEXT NOT NULL,
    "quote_hash" TEXT NOT NULL,
    "referrer" TEXT NOT NULL,
    "chain" TEXT NOT NULL,
    "chain_id" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "token_symbol" TEXT NOT NULL,
    "decimals" INTEGER NOT NULL,
    "amount" DECIMAL(78,0) NOT NULL,
    "voucher_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "referral_accruals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "vouchers" (
    "id" TEXT NOT NULL,
    "partner_id" TEXT NOT NULL,
    "chain" TEXT NOT NULL,
    "chain_id" TEXT NOT NULL,
    "router_address" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "token_symbol" TEXT NOT NULL,
    "decimals" INTEGER NOT NULL,
    "referrer" TEXT NOT NULL,
    "amount" DECIMAL(78,0) NOT NULL,
    "signature" TEXT NOT NULL,
    "calldata" TEXT NOT NULL,
    "redeemed" BOOLEAN NOT NULL DEFAULT false,
    "redeem_tx" TEXT,
    "redeemed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "vouchers_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "partners_email_key" ON "partners"("email");
CREATE UNIQUE INDEX "sessions_token_hash_key" ON "sessions"("token_hash");
CREATE INDEX "sessions_partner_id_idx" ON "sessions"("partner_id");
CREATE UNIQUE INDEX "api_keys_secret_hash_key" ON "api_keys"("secret_hash");
CREATE INDEX "api_keys_partner_id_idx" ON "api_keys"("partner_id");
CREATE UNIQUE INDEX "ledger_entries_quote_hash_kind_key" ON "ledger_entries"("quote_hash", "kind");
CREATE INDEX "ledger_entries_partner_id_idx" ON "ledger_entries"("partner_id");
CREATE INDEX "funding_intents_partner_id_idx" ON "funding_intents"("partner_id");
CREATE UNIQUE INDEX "referral_accruals_quote_hash_referrer_key" ON "referral_accruals"("quote_hash", "referrer");
CREATE INDEX "referral_accruals_partner_id_referrer_chain_token_idx" ON "referral_accruals"("partner_id", "referrer", "chain", "token");
CREATE INDEX "vouchers_partner_id_created_at_idx" ON "vouchers"("partner_id", "created_at");

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_partner_id_fkey" FOREIGN KEY ("partner_id") REFERENCES "partners"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_partner_id_fkey" FOREIGN KEY ("partner_id") REFERENCES "partners"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_partner_id_fkey" FOREIGN KEY ("partner_id") REFERENCES "partners"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "funding_intents" ADD CONSTRAINT "funding_intents_partner_id_fkey" FOREIGN KEY ("partner_id") REFERENCES "partners"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "referral_accruals" ADD CONSTRAINT "referral_accruals_partner_id_fkey" FOREIGN KEY ("partner_id") REFERENCES "partners"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "referral_accruals" ADD CONSTRAINT "referral_accruals_voucher_id_fkey" FOREIGN KEY ("voucher_id") REFERENCES "vouchers"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "vouchers" ADD CONSTRAINT "vouchers_partner_id_fkey" FOREIGN KEY ("partner_id") REFERENCES "partners"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Not expressible in the Prisma schema: the ledger is append-only and its balance never negative.
CREATE FUNCTION "ledger_entries_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries is append-only (% refused)', TG_OP USING ERRCODE = 'P0001';
END $$;
CREATE TRIGGER "ledger_entries_no_update_or_delete" BEFORE UPDATE OR DELETE ON "ledger_entries"
  FOR EACH ROW EXECUTE FUNCTION "ledger_entries_append_only"();

CREATE FUNCTION "ledger_entries_balance_not_negative"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT COALESCE(SUM("delta_usd_micros"), 0) FROM "ledger_entries" WHERE "partner_id" = NEW."partner_id") < 0 THEN
    RAISE EXCEPTION 'funding balance of partner % would be negative', NEW."partner_id" USING ERRCODE = '23514';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER "ledger_entries_balance_check" AFTER INSERT ON "ledger_entries"
  FOR EACH ROW EXECUTE FUNCTION "ledger_entries_balance_not_negative"();
