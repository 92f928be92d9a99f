-- Settlement (D15): what the system decided for each deposited order, once, and how far it got.
-- The primary key makes the decision once per order whichever replica takes it; a fill holds an
-- inventory reservation (dst chain, token, amount) until it is confirmed or given up.
CREATE TABLE "settlements" (
    "quote_hash" TEXT NOT NULL PRIMARY KEY,
    "decision" TEXT NOT NULL CHECK ("decision" IN ('fill', 'refund')),
    -- Why an order is refunded: INVENTORY, RETENTION, MISMATCH, FILL_FAILED, OPERATOR.
    "reason" TEXT,
    -- The operator transaction to see through next; NULL once the order is settled.
    "step" TEXT CHECK ("step" IN ('fill', 'cancel', 'refund')),
    -- open (steps to go), done (settled), stuck (an operator must look: the error says why).
    "state" TEXT NOT NULL CHECK ("state" IN ('open', 'done', 'stuck')),
    "src_chain" TEXT NOT NULL,
    "dst_chain" TEXT NOT NULL,
    "dst_token" TEXT NOT NULL,
    -- The inventory reserved for a fill, destination base units; 0 once released.
    "reserved" DECIMAL(78,0) NOT NULL DEFAULT 0,
    "error" TEXT,
    -- The repayment of a filled order's deposit to the treasury (D15): due once the fill is confirmed
    -- (EVM sources; a Solana deposit is already in the operator's vault), batched, claimed, or stuck.
    "claim" TEXT CHECK ("claim" IN ('due', 'batched', 'claimed', 'stuck')),
    -- The claim transaction's id: keccak256 of the batch's quote hashes, sorted.
    "claim_batch" TEXT,
    -- A batch that failed is claimed again one order at a time, so one bad order holds up no other.
    "claim_solo" BOOLEAN NOT NULL DEFAULT false,
    "decided_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CHECK (("state" = 'open') = ("step" IS NOT NULL)),
    CHECK ("reserved" = 0 OR ("decision" = 'fill' AND "state" = 'open')),
    CHECK ("claim" IS NULL OR ("decision" = 'fill' AND "state" = 'done')),
    CHECK (("claim" = 'batched') = ("claim_batch" IS NOT NULL) OR "claim" IN ('claimed', 'stuck'))
);
CREATE INDEX "settlements_open_idx" ON "settlements"("decided_at") WHERE "state" = 'open';
CREATE INDEX "settlements_reserved_idx" ON "settlements"("dst_chain", "dst_token") WHERE "reserved" > 0;
CREATE INDEX "settlements_claim_idx" ON "settlements"("src_chain", "updated_at") WHERE "claim" IN ('due', 'batched');
