-- A chain replaced under the relayer (a devnet started afresh, a reorg past the confirmation
-- depth): the rows whose transactions were mined on the chain that is gone keep their status and
-- nonce as history, stamped with when the replacement was found. Their nonces no longer count: not
-- for the wallet's next nonce, not for the one-order-per-nonce rule, which now holds per chain as
-- it is (the new chain's wallet nonces start again below the old ones).
ALTER TABLE "gasless_orders" ADD COLUMN "chain_replaced_at" TIMESTAMPTZ(3);
DROP INDEX "gasless_orders_wallet_nonce_key";
CREATE UNIQUE INDEX "gasless_orders_wallet_nonce_key" ON "gasless_orders"("chain", "wallet", "tx_nonce") WHERE "tx_nonce" IS NOT NULL AND "chain_replaced_at" IS NULL;
