-- ListOrders and the status filter of ListPartnerOrders.

-- The order's lifecycle step as its recorded events make it: quoted, deposited, fulfilled or refunded
-- (`expired` is a quoted order past retained_until, read from that column). Kept by the order events consumer.
ALTER TABLE "quotes" ADD COLUMN "status" TEXT NOT NULL DEFAULT 'quoted';
UPDATE "quotes" q SET "status" = s.status
FROM (
  SELECT quote_hash,
         CASE WHEN bool_or(type = 'refunded') THEN 'refunded'
              WHEN bool_or(type = 'fulfilled') THEN 'fulfilled'
              ELSE 'deposited' END AS status
  FROM "order_events" GROUP BY quote_hash
) s
WHERE q.quote_hash = s.quote_hash;
CREATE INDEX "quotes_partner_status_created_idx" ON "quotes"("partner_id", "status", "created_at" DESC, "quote_hash" DESC);

-- The order's recipient and refund address as bytes32 (EVM left-padded, Solana key bytes), copied
-- from "order" when the quote is stored, so an address's orders are an index range.
ALTER TABLE "quotes" ADD COLUMN "recipient" BYTEA, ADD COLUMN "refund_address" BYTEA;
UPDATE "quotes" SET "recipient" = decode(substr("order"->>'recipient', 3), 'hex'),
                    "refund_address" = decode(substr("order"->>'refund_address', 3), 'hex');
CREATE INDEX "quotes_recipient_created_idx" ON "quotes"("recipient", "created_at" DESC, "quote_hash" DESC);
CREATE INDEX "quotes_refund_created_idx" ON "quotes"("refund_address", "created_at" DESC, "quote_hash" DESC);

-- Who paid each deposit (the router's depositor, the paying account on Solana), as bytes32.
CREATE TABLE "order_depositors" (
    "quote_hash" TEXT NOT NULL,
    "address" BYTEA NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "order_depositors_pkey" PRIMARY KEY ("quote_hash", "address"),
    CONSTRAINT "order_depositors_quote_hash_fkey" FOREIGN KEY ("quote_hash") REFERENCES "quotes"("quote_hash") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "order_depositors_address_created_idx" ON "order_depositors"("address", "created_at" DESC, "quote_hash" DESC);
