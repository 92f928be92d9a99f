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

-- Who an order concerns, by address as bytes32 (EVM left-padded, Solana key bytes): one row per
-- (order, address), `roles` a bit set (1 depositor, 2 recipient, 4 refund address).
CREATE TABLE "order_parties" (
    "quote_hash" TEXT NOT NULL,
    "address" BYTEA NOT NULL,
    "roles" SMALLINT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "order_parties_pkey" PRIMARY KEY ("quote_hash", "address"),
    CONSTRAINT "order_parties_quote_hash_fkey" FOREIGN KEY ("quote_hash") REFERENCES "quotes"("quote_hash") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "order_parties_address_created_idx" ON "order_parties"("address", "created_at" DESC, "quote_hash" DESC);

-- The recipients and refund addresses of the orders stored so far.
INSERT INTO "order_parties" ("quote_hash", "address", "roles", "created_at")
SELECT q.quote_hash, p.address, bit_or(p.role)::smallint, q.created_at
FROM "quotes" q
CROSS JOIN LATERAL (VALUES
  (decode(substr(q."order"->>'recipient', 3), 'hex'), 2),
  (decode(substr(q."order"->>'refund_address', 3), 'hex'), 4)
) AS p(address, role)
WHERE p.address IS NOT NULL
GROUP BY q.quote_hash, p.address, q.created_at;
