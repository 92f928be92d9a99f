-- Inventory rebalancing through CCTP (issue 47). A planned move is a row before anything is signed;
-- its steps go through the relayer's lanes keyed by the move's id, and the state moves only from the
-- state before it, so two replicas or a restart never take a step twice.
CREATE TABLE "rebalance_moves" (
    "id" TEXT NOT NULL PRIMARY KEY CHECK ("id" ~ '^0x[0-9a-f]{64}$'),
    "token" TEXT NOT NULL,
    "src_chain" TEXT NOT NULL,
    "dst_chain" TEXT NOT NULL CHECK ("dst_chain" <> "src_chain"),
    "amount" DECIMAL(78,0) NOT NULL CHECK ("amount" > 0),
    "max_fee" DECIMAL(78,0) NOT NULL CHECK ("max_fee" >= 0 AND "max_fee" < "amount"),
    "state" TEXT NOT NULL CHECK ("state" IN ('planned', 'approved', 'burned', 'attested', 'received', 'failed', 'stuck')),
    "burn_tx" TEXT,
    "message" TEXT,
    "attestation" TEXT,
    "fee_executed" DECIMAL(78,0),
    "mint_tx" TEXT,
    "error" TEXT,
    "planned_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "burned_at" TIMESTAMPTZ(3),
    "attested_at" TIMESTAMPTZ(3),
    "received_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    -- A burned move has its transaction (a stuck one was burned: it is never burned again); an attested one its message and signature.
    CHECK ("state" IN ('planned', 'approved', 'failed') OR "burn_tx" IS NOT NULL),
    CHECK ("state" NOT IN ('failed', 'stuck') OR "error" IS NOT NULL),
    CHECK ("state" NOT IN ('attested', 'received') OR ("message" IS NOT NULL AND "attestation" IS NOT NULL AND "fee_executed" IS NOT NULL))
);
CREATE INDEX "rebalance_moves_state_idx" ON "rebalance_moves"("state");
-- At most one move open into a chain per token: what is in flight counts toward the destination, and
-- a second replica's plan for the same shortfall is refused here.
CREATE UNIQUE INDEX "rebalance_moves_open_key" ON "rebalance_moves"("token", "dst_chain") WHERE "state" NOT IN ('received', 'failed', 'stuck');
