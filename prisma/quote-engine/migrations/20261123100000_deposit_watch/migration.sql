-- AlterTable: the block of each order event (nullable: events recorded before it was carried have none)
ALTER TABLE "order_events" ADD COLUMN "block_number" BIGINT;

-- CreateTable: where each deposit watcher stopped reading
CREATE TABLE "chain_cursors" (
    "name" TEXT NOT NULL,
    "block" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "chain_cursors_pkey" PRIMARY KEY ("name")
);
