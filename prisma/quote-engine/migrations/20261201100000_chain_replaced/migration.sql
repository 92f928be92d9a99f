-- A chain replaced under a deposit watcher (a devnet started afresh, a reorg past the confirmation
-- depth): each position keeps the hash of a block it read, so a pass can tell that the chain at
-- that height is another one.
ALTER TABLE "chain_cursors" ADD COLUMN "hash_block" BIGINT;
ALTER TABLE "chain_cursors" ADD COLUMN "block_hash" TEXT;
-- The steps read from a chain since replaced stay as history (their orders keep what they
-- recorded) and are never re-checked against the new chain's blocks.
ALTER TABLE "chain_steps" ADD COLUMN "chain_replaced_at" TIMESTAMPTZ(3);
