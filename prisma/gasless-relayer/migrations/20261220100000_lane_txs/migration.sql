-- One table per thing held (issue 46 §4). gasless_orders held every lane transaction: gasless
-- deposits and five kinds of operator transaction, keyed `<kind>-<hash>`, with columns that only
-- one kind used. It becomes lane_txs, the lanes' payload, nonce and send state machine, keyed by the
-- job id (unchanged, so queued jobs and relay_txs still find their rows); what each transaction is
-- for moves to one table per kind of work, each keyed by what it does and pointing at its lane
-- transaction. Every row is kept: the data moves in this migration.
ALTER TABLE "gasless_orders" RENAME TO "lane_txs";
ALTER TABLE "lane_txs" RENAME CONSTRAINT "gasless_orders_pkey" TO "lane_txs_pkey";
ALTER TABLE "lane_txs" RENAME COLUMN "quote_hash" TO "id";
ALTER TABLE "lane_txs" RENAME COLUMN "executor" TO "target";
ALTER INDEX "gasless_orders_status_chain_idx" RENAME TO "lane_txs_status_chain_idx";
ALTER INDEX "gasless_orders_wallet_nonce_key" RENAME TO "lane_txs_wallet_nonce_key";
ALTER INDEX "gasless_orders_svm_signature_key" RENAME TO "lane_txs_svm_signature_key";

-- What a gasless order is: the signer, the Permit2 terms signed (EVM) and the sponsor's hold.
CREATE TABLE "gasless_orders" (
    "quote_hash" TEXT NOT NULL PRIMARY KEY REFERENCES "lane_txs"("id") ON DELETE CASCADE,
    "owner" TEXT NOT NULL,
    "permit2_nonce" DECIMAL(78,0),
    "deadline" BIGINT,
    "partner_id" TEXT,
    "hold_usd_micros" DECIMAL(78,0),
    "hold_state" TEXT CHECK ("hold_state" IN ('holding', 'held', 'settled', 'released')),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- A sponsored order always has its hold; Permit2's nonce and deadline come together (EVM) or not at all (Solana).
    CONSTRAINT "gasless_orders_hold_check" CHECK (("partner_id" IS NULL) = ("hold_state" IS NULL)),
    CONSTRAINT "gasless_orders_permit2_check" CHECK (("permit2_nonce" IS NULL) = ("deadline" IS NULL))
);
INSERT INTO "gasless_orders" ("quote_hash", "owner", "permit2_nonce", "deadline", "partner_id", "hold_usd_micros", "hold_state", "created_at", "updated_at")
SELECT "id", "owner", "permit2_nonce", "deadline", "partner_id", "hold_usd_micros", "hold_state", "created_at", "updated_at"
FROM "lane_txs" WHERE "kind" = 'gasless';

-- The operator transactions settlement asks for (D15), one table per kind, one row per key ever.
CREATE TABLE "fill_txs" (
    "quote_hash" TEXT NOT NULL PRIMARY KEY,
    "lane_tx_id" TEXT NOT NULL UNIQUE REFERENCES "lane_txs"("id") ON DELETE CASCADE,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE "cancel_txs" (
    "quote_hash" TEXT NOT NULL PRIMARY KEY,
    "lane_tx_id" TEXT NOT NULL UNIQUE REFERENCES "lane_txs"("id") ON DELETE CASCADE,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE "refund_txs" (
    "quote_hash" TEXT NOT NULL PRIMARY KEY,
    "lane_tx_id" TEXT NOT NULL UNIQUE REFERENCES "lane_txs"("id") ON DELETE CASCADE,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
-- A claim is keyed by its batch (keccak256 of the batch's quote hashes).
CREATE TABLE "claim_txs" (
    "batch_key" TEXT NOT NULL PRIMARY KEY,
    "lane_tx_id" TEXT NOT NULL UNIQUE REFERENCES "lane_txs"("id") ON DELETE CASCADE,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
-- A return of a stray Solana deposit (D16) is keyed by the deposit (keccak256 of chain:signature:index).
CREATE TABLE "return_txs" (
    "deposit_key" TEXT NOT NULL PRIMARY KEY,
    "lane_tx_id" TEXT NOT NULL UNIQUE REFERENCES "lane_txs"("id") ON DELETE CASCADE,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "fill_txs" SELECT "order_hash", "id", "created_at" FROM "lane_txs" WHERE "kind" = 'fill';
INSERT INTO "cancel_txs" SELECT "order_hash", "id", "created_at" FROM "lane_txs" WHERE "kind" = 'cancel';
INSERT INTO "refund_txs" SELECT "order_hash", "id", "created_at" FROM "lane_txs" WHERE "kind" = 'refund';
INSERT INTO "claim_txs" SELECT "order_hash", "id", "created_at" FROM "lane_txs" WHERE "kind" = 'claim';
INSERT INTO "return_txs" SELECT "order_hash", "id", "created_at" FROM "lane_txs" WHERE "kind" = 'return';

-- The lane table keeps only what every lane transaction has. Its checks are written again, named.
DO $$
DECLARE c record;
BEGIN
  FOR c IN SELECT conname FROM pg_constraint WHERE conrelid = '"lane_txs"'::regclass AND contype = 'c' LOOP
    EXECUTE format('ALTER TABLE "lane_txs" DROP CONSTRAINT %I', c.conname);
  END LOOP;
END $$;
DROP INDEX "gasless_orders_kind_order_key";
ALTER TABLE "lane_txs"
    DROP COLUMN "owner",
    DROP COLUMN "permit2_nonce",
    DROP COLUMN "deadline",
    DROP COLUMN "partner_id",
    DROP COLUMN "hold_usd_micros",
    DROP COLUMN "hold_state",
    DROP COLUMN "order_hash",
    ALTER COLUMN "kind" DROP DEFAULT;
ALTER TABLE "lane_txs"
    ADD CONSTRAINT "lane_txs_status_check" CHECK ("status" IN ('queued', 'submitted', 'confirmed', 'failed')),
    ADD CONSTRAINT "lane_txs_kind_check" CHECK ("kind" IN ('gasless', 'fill', 'cancel', 'refund', 'claim', 'return')),
    ADD CONSTRAINT "lane_txs_vm_check" CHECK ("vm" IN ('evm', 'svm')),
    -- The payload of its vm: an EVM call, or a whole signed Solana transaction and its id.
    ADD CONSTRAINT "lane_txs_payload_check" CHECK (
        ("vm" = 'evm' AND "target" IS NOT NULL AND "calldata" IS NOT NULL)
        OR ("vm" = 'svm' AND "svm_tx" IS NOT NULL AND "svm_signature" IS NOT NULL)),
    -- A submitted EVM transaction always has its nonce; a Solana transaction has none (its blockhash bounds it).
    ADD CONSTRAINT "lane_txs_nonce_check" CHECK ("vm" = 'svm' OR "status" = 'queued' OR "tx_nonce" IS NOT NULL OR "status" = 'failed');

ALTER TABLE "relay_txs" RENAME COLUMN "quote_hash" TO "lane_tx_id";
ALTER INDEX "relay_txs_quote_hash_idx" RENAME TO "relay_txs_lane_tx_id_idx";
ALTER TABLE "relay_txs" RENAME CONSTRAINT "relay_txs_quote_hash_fkey" TO "relay_txs_lane_tx_id_fkey";
