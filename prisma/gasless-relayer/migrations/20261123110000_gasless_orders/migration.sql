-- Gasless orders and the transactions sent for them. The database, not Redis, is the truth.
CREATE TABLE "gasless_orders" (
    "quote_hash" TEXT NOT NULL PRIMARY KEY,
    "chain" TEXT NOT NULL,
    "status" TEXT NOT NULL CHECK ("status" IN ('queued', 'submitted', 'confirmed', 'failed')),
    "owner" TEXT NOT NULL,
    "permit2_nonce" DECIMAL(78,0) NOT NULL,
    "deadline" BIGINT NOT NULL,
    "executor" TEXT NOT NULL,
    "calldata" TEXT NOT NULL,
    "wallet" TEXT NOT NULL,
    "tx_nonce" BIGINT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "partner_id" TEXT,
    "hold_usd_micros" DECIMAL(78,0),
    "hold_state" TEXT CHECK ("hold_state" IN ('holding', 'held', 'settled', 'released')),
    "mined_tx_hash" TEXT,
    "confirmed_block" BIGINT,
    "gas_cost_wei" DECIMAL(78,0),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- A submitted order always has its nonce; a sponsored one always has its hold.
    CHECK ("status" = 'queued' OR "tx_nonce" IS NOT NULL OR "status" = 'failed'),
    CHECK (("partner_id" IS NULL) = ("hold_state" IS NULL))
);
CREATE INDEX "gasless_orders_status_chain_idx" ON "gasless_orders"("status", "chain");
-- One order per wallet nonce on a chain: two orders can never be sent with the same nonce.
CREATE UNIQUE INDEX "gasless_orders_wallet_nonce_key" ON "gasless_orders"("chain", "wallet", "tx_nonce") WHERE "tx_nonce" IS NOT NULL;

CREATE TABLE "relay_txs" (
    "tx_hash" TEXT NOT NULL PRIMARY KEY,
    "quote_hash" TEXT NOT NULL REFERENCES "gasless_orders"("quote_hash") ON DELETE CASCADE,
    "nonce" BIGINT NOT NULL,
    "max_fee_per_gas" DECIMAL(78,0) NOT NULL,
    "max_priority_fee_per_gas" DECIMAL(78,0) NOT NULL,
    "raw" TEXT NOT NULL,
    "sent_block" BIGINT NOT NULL,
    "sent_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX "relay_txs_quote_hash_idx" ON "relay_txs"("quote_hash");
