-- CreateTable
CREATE TABLE "funding_deposits" (
    "id" BIGSERIAL NOT NULL,
    "chain" TEXT NOT NULL,
    "tx_hash" TEXT NOT NULL,
    "log_index" INTEGER NOT NULL,
    "block_number" BIGINT NOT NULL,
    "funding_id" TEXT NOT NULL,
    "token" TEXT NOT NULL,
    "payer" TEXT NOT NULL,
    "amount" DECIMAL(78,0) NOT NULL,
    "status" TEXT NOT NULL,
    "detail" TEXT,
    "partner_id" TEXT,
    "usd_micros" BIGINT,
    "price_e18" DECIMAL(78,0),
    "price_publish_time" INTEGER,
    "ledger_entry_id" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "funding_deposits_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "chain_cursors" (
    "name" TEXT NOT NULL,
    "block" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "chain_cursors_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "funding_deposits_chain_tx_hash_log_index_key" ON "funding_deposits"("chain", "tx_hash", "log_index");
CREATE UNIQUE INDEX "funding_deposits_ledger_entry_id_key" ON "funding_deposits"("ledger_entry_id");
CREATE INDEX "funding_deposits_partner_id_idx" ON "funding_deposits"("partner_id");
CREATE INDEX "funding_deposits_status_idx" ON "funding_deposits"("status");

-- AddForeignKey
ALTER TABLE "funding_deposits" ADD CONSTRAINT "funding_deposits_partner_id_fkey" FOREIGN KEY ("partner_id") REFERENCES "partners"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "funding_deposits" ADD CONSTRAINT "funding_deposits_ledger_entry_id_fkey" FOREIGN KEY ("ledger_entry_id") REFERENCES "ledger_entries"("id") ON DELETE SET NULL ON UPDATE CASCADE;
