-- AlterTable: where each order step was read (reorg checks) and what it moved
ALTER TABLE "order_events" ADD COLUMN "block_hash" TEXT;
ALTER TABLE "order_events" ADD COLUMN "log_index" INTEGER;
ALTER TABLE "order_events" ADD COLUMN "amount" TEXT;

-- CreateTable: every step a chain watcher published, until a reorg withdraws it
CREATE TABLE "chain_steps" (
    "watcher" TEXT NOT NULL,
    "tx_hash" TEXT NOT NULL,
    "log_index" INTEGER NOT NULL,
    "block_hash" TEXT NOT NULL,
    "block_number" BIGINT NOT NULL,
    "event" JSONB NOT NULL,
    "withdrawn_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "chain_steps_pkey" PRIMARY KEY ("watcher", "tx_hash", "log_index", "block_hash")
);
CREATE INDEX "chain_steps_watcher_block_idx" ON "chain_steps" ("watcher", "block_number") WHERE "withdrawn_at" IS NULL;

-- CreateTable: the last order view pushed per order (D13), so each change is pushed once, in order
CREATE TABLE "order_view_pushes" (
    "quote_hash" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "digest" TEXT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "order_view_pushes_pkey" PRIMARY KEY ("quote_hash"),
    CONSTRAINT "order_view_pushes_quote_fkey" FOREIGN KEY ("quote_hash") REFERENCES "quotes"("quote_hash") ON DELETE CASCADE ON UPDATE CASCADE
);
