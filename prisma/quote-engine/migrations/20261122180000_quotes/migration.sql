-- CreateTable
CREATE TABLE "quotes" (
    "quote_hash" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "src_chain" TEXT NOT NULL,
    "dst_chain" TEXT NOT NULL,
    "route_type" TEXT NOT NULL,
    "gasless" BOOLEAN NOT NULL,
    "sponsor_fees" BOOLEAN NOT NULL,
    "caller_kind" TEXT NOT NULL,
    "api_key_id" TEXT,
    "partner_id" TEXT,
    "order" JSONB NOT NULL,
    "response" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "retained_until" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "quotes_pkey" PRIMARY KEY ("quote_hash")
);

-- CreateTable
CREATE TABLE "order_events" (
    "quote_hash" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "chain" TEXT NOT NULL,
    "tx_hash" TEXT NOT NULL,
    "occurred_at" TIMESTAMPTZ(3) NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "order_events_pkey" PRIMARY KEY ("quote_hash","type")
);

-- CreateTable
CREATE TABLE "fulfillment_samples" (
    "quote_hash" TEXT NOT NULL,
    "src_chain" TEXT NOT NULL,
    "dst_chain" TEXT NOT NULL,
    "route_type" TEXT NOT NULL,
    "secs" INTEGER NOT NULL,
    "fulfilled_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "fulfillment_samples_pkey" PRIMARY KEY ("quote_hash")
);

-- CreateIndex
CREATE INDEX "quotes_retained_until_idx" ON "quotes"("retained_until");

-- CreateIndex
CREATE INDEX "fulfillment_samples_pair_idx" ON "fulfillment_samples"("src_chain", "dst_chain", "route_type", "fulfilled_at");

-- AddForeignKey
ALTER TABLE "order_events" ADD CONSTRAINT "order_events_quote_hash_fkey" FOREIGN KEY ("quote_hash") REFERENCES "quotes"("quote_hash") ON DELETE CASCADE ON UPDATE CASCADE;
