-- Referral accruals remember the fulfilment they stand on, so a reorg that withdraws it can reverse them.
ALTER TABLE "referral_accruals" ADD COLUMN "fulfil_chain" TEXT;
ALTER TABLE "referral_accruals" ADD COLUMN "fulfil_tx_hash" TEXT;
ALTER TABLE "referral_accruals" ADD COLUMN "fulfil_log_index" INTEGER;
ALTER TABLE "referral_accruals" ADD COLUMN "fulfil_block_hash" TEXT;

-- CreateTable
CREATE TABLE "referral_withdrawals" (
    "id" BIGSERIAL NOT NULL,
    "quote_hash" TEXT NOT NULL,
    "chain" TEXT NOT NULL,
    "tx_hash" TEXT NOT NULL,
    "log_index" INTEGER,
    "block_hash" TEXT,
    "reversed" INTEGER NOT NULL,
    "kept" INTEGER NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "referral_withdrawals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhooks" (
    "partner_id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "secret" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhooks_pkey" PRIMARY KEY ("partner_id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" BIGSERIAL NOT NULL,
    "partner_id" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "quote_hash" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "body" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "next_attempt_at" TIMESTAMPTZ(3),
    "first_attempt_at" TIMESTAMPTZ(3),
    "delivered_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "referral_withdrawals_quote_hash_idx" ON "referral_withdrawals"("quote_hash");
CREATE UNIQUE INDEX "webhook_deliveries_partner_id_event_id_key" ON "webhook_deliveries"("partner_id", "event_id");
CREATE INDEX "webhook_deliveries_partner_id_id_idx" ON "webhook_deliveries"("partner_id", "id");
CREATE INDEX "webhook_deliveries_status_next_attempt_at_idx" ON "webhook_deliveries"("status", "next_attempt_at");

-- AddForeignKey
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_partner_id_fkey" FOREIGN KEY ("partner_id") REFERENCES "partners"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_partner_id_fkey" FOREIGN KEY ("partner_id") REFERENCES "partners"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Not expressible in the Prisma schema: a delivery's status is one of three.
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" IN ('pending', 'delivered', 'failed'));
