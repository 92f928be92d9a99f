-- Rebalancing moves of inventory through CCTP (issue 47): the quote-engine plans a move and asks for
-- its transactions like any other operator transaction (D15), through the source and destination
-- wallets' lanes. One table per kind, one row per move, ever.
ALTER TABLE "lane_txs" DROP CONSTRAINT "lane_txs_kind_check";
ALTER TABLE "lane_txs" ADD CONSTRAINT "lane_txs_kind_check"
    CHECK ("kind" IN ('gasless', 'fill', 'cancel', 'refund', 'claim', 'return', 'approve', 'burn', 'mint'));
-- The TokenMessenger's allowance for the move's amount, on the source chain.
CREATE TABLE "approve_txs" (
    "move_id" TEXT NOT NULL PRIMARY KEY,
    "lane_tx_id" TEXT NOT NULL UNIQUE REFERENCES "lane_txs"("id") ON DELETE CASCADE,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
-- depositForBurn on the source chain.
CREATE TABLE "burn_txs" (
    "move_id" TEXT NOT NULL PRIMARY KEY,
    "lane_tx_id" TEXT NOT NULL UNIQUE REFERENCES "lane_txs"("id") ON DELETE CASCADE,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
-- receiveMessage on the destination chain, with the attested message.
CREATE TABLE "mint_txs" (
    "move_id" TEXT NOT NULL PRIMARY KEY,
    "lane_tx_id" TEXT NOT NULL UNIQUE REFERENCES "lane_txs"("id") ON DELETE CASCADE,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
