-- Issue 45: quotes apart from orders, quotes stored by the day.
--
-- A quote (what a deposit needs to be honoured) is written once, read by its hash, never updated
-- and never listed. It lives in `quotes`, partitioned by the day of its `retained_until` (UTC), so
-- the end of retention drops a whole day (no row-by-row DELETE, no vacuum debt). One hash index
-- serves the lookups by hash; a BRIN index on `retained_until` serves the expiry sweep.
--
-- An order exists from the moment the system first sees a quote used (a gasless submission, a
-- deposit seen on chain). It copies the quote's terms, and holds the status, the parties, the
-- relay failure and only the indexes the lists need. Its steps, depositors and pushed views refer
-- to it.

-- 1. Orders, and today's used quotes moved into them.
CREATE TABLE "orders" (
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
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "retained_until" TIMESTAMPTZ(3) NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'quoted',
    "failure_reason" TEXT,
    "failure_message" TEXT,
    "failed_at" TIMESTAMPTZ(3),
    "recipient" BYTEA,
    "refund_address" BYTEA,
    "seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "orders_pkey" PRIMARY KEY ("quote_hash")
);
ALTER TABLE "orders" ALTER COLUMN "order" SET COMPRESSION lz4, ALTER COLUMN "response" SET COMPRESSION lz4;
ALTER TABLE "orders" ALTER COLUMN "order" SET STATISTICS 0, ALTER COLUMN "response" SET STATISTICS 0;

INSERT INTO "orders" ("quote_hash", "kind", "src_chain", "dst_chain", "route_type", "gasless", "sponsor_fees", "caller_kind",
    "api_key_id", "partner_id", "order", "response", "created_at", "expires_at", "retained_until", "status",
    "failure_reason", "failure_message", "failed_at", "recipient", "refund_address", "seen_at")
SELECT q."quote_hash", q."kind", q."src_chain", q."dst_chain", q."route_type", q."gasless", q."sponsor_fees", q."caller_kind",
    q."api_key_id", q."partner_id", q."order", q."response", q."created_at", q."expires_at", q."retained_until", q."status",
    q."failure_reason", q."failure_message", q."failed_at", q."recipient", q."refund_address", q."created_at"
FROM "quotes" q
WHERE EXISTS (SELECT 1 FROM "order_events" e WHERE e."quote_hash" = q."quote_hash")
   OR q."failed_at" IS NOT NULL
   OR EXISTS (SELECT 1 FROM "order_depositors" d WHERE d."quote_hash" = q."quote_hash")
   OR EXISTS (SELECT 1 FROM "settlements" s WHERE s."quote_hash" = q."quote_hash")
   -- A view pushed for another reason than its expiry: the relayer reported a gasless submission.
   OR EXISTS (SELECT 1 FROM "order_view_pushes" p WHERE p."quote_hash" = q."quote_hash" AND p."status" IS DISTINCT FROM 'expired');

CREATE INDEX "orders_retained_until_idx" ON "orders"("retained_until");
CREATE INDEX "orders_partner_created_idx" ON "orders"("partner_id", "created_at" DESC, "quote_hash" DESC);
CREATE INDEX "orders_partner_status_created_idx" ON "orders"("partner_id", "status", "created_at" DESC, "quote_hash" DESC);
CREATE INDEX "orders_recipient_created_idx" ON "orders"("recipient", "created_at" DESC, "quote_hash" DESC);
CREATE INDEX "orders_refund_created_idx" ON "orders"("refund_address", "created_at" DESC, "quote_hash" DESC);

-- 2. The expiry sweep's progress (D16): every quote that is no order and whose retention ended
-- before (retained_until, quote_hash) has had `expired` pushed. One replica sweeps at a time (the
-- lease); the drop of a day waits until the sweep has passed it.
CREATE TABLE "quote_expiry_sweep" (
    "name" TEXT NOT NULL,
    "retained_until" TIMESTAMPTZ(3) NOT NULL,
    "quote_hash" TEXT NOT NULL,
    "lease_owner" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    CONSTRAINT "quote_expiry_sweep_pkey" PRIMARY KEY ("name")
);
-- It starts at the first quote whose retention ended with no `expired` pushed (the old sweep's
-- backlog), or now.
INSERT INTO "quote_expiry_sweep" ("name", "retained_until", "quote_hash")
SELECT 'expired', COALESCE((
    SELECT min(q."retained_until") FROM "quotes" q
    WHERE q."retained_until" < now() AND q."retained_until" > now() - interval '30 days'
      AND NOT EXISTS (SELECT 1 FROM "orders" o WHERE o."quote_hash" = q."quote_hash")
      AND NOT EXISTS (SELECT 1 FROM "order_view_pushes" p
                      WHERE p."quote_hash" = q."quote_hash" AND p."status" = 'expired' AND p."pending" IS NULL)
  ), now()), '';

-- The steps, depositors and pushed views of a quote that is no order (pushed `expired`) go; the
-- rest refer to orders from now on.
DELETE FROM "order_view_pushes" p WHERE NOT EXISTS (SELECT 1 FROM "orders" o WHERE o."quote_hash" = p."quote_hash");
ALTER TABLE "order_events" DROP CONSTRAINT "order_events_quote_hash_fkey";
ALTER TABLE "order_depositors" DROP CONSTRAINT "order_depositors_quote_hash_fkey";
ALTER TABLE "order_view_pushes" DROP CONSTRAINT "order_view_pushes_quote_fkey";
ALTER TABLE "order_events" ADD CONSTRAINT "order_events_quote_hash_fkey" FOREIGN KEY ("quote_hash") REFERENCES "orders"("quote_hash") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "order_depositors" ADD CONSTRAINT "order_depositors_quote_hash_fkey" FOREIGN KEY ("quote_hash") REFERENCES "orders"("quote_hash") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "order_view_pushes" ADD CONSTRAINT "order_view_pushes_quote_fkey" FOREIGN KEY ("quote_hash") REFERENCES "orders"("quote_hash") ON DELETE CASCADE ON UPDATE CASCADE;

-- 3. Quotes by the day of their retention's end.
ALTER TABLE "quotes" RENAME TO "quotes_before_45";
ALTER TABLE "quotes_before_45" RENAME CONSTRAINT "quotes_pkey" TO "quotes_before_45_pkey";
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
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "retained_until" TIMESTAMPTZ(3) NOT NULL,
    -- {"o": the wire order, "r": the answer as stored (stored-response.ts)}, as text: PostgreSQL
    -- only checks it is JSON (no jsonb to build, about 30 µs less per quote), and one lz4 value
    -- compresses better than two.
    "body" JSON NOT NULL
) PARTITION BY RANGE ("retained_until");
ALTER TABLE "quotes" ALTER COLUMN "body" SET COMPRESSION lz4;
ALTER TABLE "quotes" ALTER COLUMN "body" SET STATISTICS 0;
-- Lookups by hash only: a hash index stores a 4-byte hash code per quote, not the 66-character
-- key a b-tree would. Uniqueness is the hash's own (a keccak256 over an order with a random salt).
CREATE INDEX "quotes_hash_idx" ON "quotes" USING hash ("quote_hash");
-- Rows arrive in retention order: a block-range index of a few pages per day bounds the sweep.
CREATE INDEX "quotes_retained_brin" ON "quotes" USING brin ("retained_until");

-- The service's role may read and write rows, not create or drop tables (D17). These two
-- functions are the only DDL it runs, as the migrator that owns the tables. Each takes a
-- transaction-scoped advisory lock, so two replicas never race, and each is one transaction, so a
-- kill -9 in the middle leaves the day as it was before. A lock the parent table cannot get within
-- `lock_timeout` fails the call (retried next run) rather than queueing quotes behind it.
CREATE FUNCTION "quote_day_ensure"(day DATE) RETURNS BOOLEAN
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  part TEXT := 'quotes_p' || to_char(day, 'YYYYMMDD');
  lo TIMESTAMPTZ := (day::timestamp AT TIME ZONE 'UTC');
  hi TIMESTAMPTZ := ((day + 1)::timestamp AT TIME ZONE 'UTC');
BEGIN
  PERFORM pg_advisory_xact_lock(4545001);
  IF EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'quotes'::regclass AND c.relname = part) THEN
    RETURN FALSE;
  END IF;
  SET LOCAL lock_timeout = '2s';
  -- Made apart and attached (SHARE UPDATE EXCLUSIVE on `quotes`): inserts and reads go on meanwhile.
  EXECUTE format('CREATE TABLE IF NOT EXISTS %I (LIKE quotes INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMPRESSION)', part);
  EXECUTE format('ALTER TABLE %I ALTER COLUMN "body" SET STATISTICS 0', part);
  EXECUTE format('ALTER TABLE quotes ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', part, lo, hi);
  RETURN TRUE;
END $$;

-- Dropping a day is two calls, so that `quotes` is locked only for the catalog change: the first
-- detaches the day (ACCESS EXCLUSIVE on `quotes` for milliseconds), the second drops the detached
-- table (unlinking a day's files can take most of a second, and locks nothing the writers use).
-- A kill between them leaves a detached day, which `quote_days_detached` lists for the next run.
CREATE FUNCTION "quote_day_detach"(day DATE) RETURNS BOOLEAN
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  part TEXT := 'quotes_p' || to_char(day, 'YYYYMMDD');
BEGIN
  PERFORM pg_advisory_xact_lock(4545001);
  IF NOT EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                 WHERE i.inhparent = 'quotes'::regclass AND c.relname = part) THEN
    RETURN FALSE;
  END IF;
  SET LOCAL lock_timeout = '200ms';
  EXECUTE format('ALTER TABLE quotes DETACH PARTITION %I', part);
  RETURN TRUE;
END $$;

CREATE FUNCTION "quote_day_drop"(day DATE) RETURNS BOOLEAN
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  part TEXT := 'quotes_p' || to_char(day, 'YYYYMMDD');
BEGIN
  PERFORM pg_advisory_xact_lock(4545001);
  IF NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.relname = part AND c.relnamespace = 'public'::regnamespace) THEN
    RETURN FALSE;
  END IF;
  -- Only a detached day: an attached one would take `quotes`' lock for the whole unlink.
  IF EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
             WHERE i.inhparent = 'quotes'::regclass AND c.relname = part) THEN
    RAISE EXCEPTION 'day % is still attached: detach it first', day;
  END IF;
  EXECUTE format('DROP TABLE %I', part);
  RETURN TRUE;
END $$;

-- Days detached and not yet dropped (a drop cut short), oldest first.
CREATE FUNCTION "quote_days_detached"() RETURNS SETOF DATE
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT to_date(substr(c.relname, 9), 'YYYYMMDD') FROM pg_class c
  WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND c.relname ~ '^quotes_p[0-9]{8}$'
    AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid)
  ORDER BY 1
$$;

-- The days that have a partition, oldest first.
CREATE FUNCTION "quote_days"() RETURNS SETOF DATE
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT to_date(substr(c.relname, 9), 'YYYYMMDD') FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
  WHERE i.inhparent = 'quotes'::regclass ORDER BY 1
$$;

-- Today's retained quotes (and those in their grace) move into their days.
SELECT "quote_day_ensure"(d::date)
FROM generate_series(
  (SELECT date_trunc('day', min("retained_until") AT TIME ZONE 'UTC') FROM "quotes_before_45" WHERE "retained_until" > now() - interval '30 days'),
  (SELECT date_trunc('day', max("retained_until") AT TIME ZONE 'UTC') FROM "quotes_before_45"),
  interval '1 day') AS d;
INSERT INTO "quotes" ("quote_hash", "kind", "src_chain", "dst_chain", "route_type", "gasless", "sponsor_fees", "caller_kind",
    "api_key_id", "partner_id", "created_at", "expires_at", "retained_until", "body")
SELECT "quote_hash", "kind", "src_chain", "dst_chain", "route_type", "gasless", "sponsor_fees", "caller_kind",
    "api_key_id", "partner_id", "created_at", "expires_at", "retained_until", json_build_object('o', "order", 'r', "response")
FROM "quotes_before_45" WHERE "retained_until" > now() - interval '30 days';
DROP TABLE "quotes_before_45";
