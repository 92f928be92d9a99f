-- Stray Solana deposits (D16): a deposit memo whose transfer paid the vault but matched no retained
-- quote (none, wrong token or amount, or after retention). Recorded once per (chain, signature, memo
-- index) by the watcher; settlement sends each back to its sender through the relayer, once.
CREATE TABLE "stray_deposits" (
    "chain" TEXT NOT NULL,
    "signature" TEXT NOT NULL,
    "memo_index" INTEGER NOT NULL,
    -- The quote hash the memo names (it may name no stored quote).
    "quote_hash" TEXT NOT NULL,
    -- The transfer's authority: who is paid back.
    "sender" TEXT NOT NULL,
    -- SOL, or the base58 SPL mint.
    "mint" TEXT NOT NULL,
    "amount" DECIMAL(78,0) NOT NULL CHECK ("amount" > 0),
    "reason" TEXT NOT NULL CHECK ("reason" IN ('NO_QUOTE', 'AFTER_RETENTION', 'WRONG_TOKEN', 'WRONG_AMOUNT', 'MISMATCH')),
    -- The watcher's words for what did not match.
    "detail" TEXT NOT NULL,
    "slot" BIGINT NOT NULL,
    "block_time" TIMESTAMPTZ(3) NOT NULL,
    -- open (to send back), returned (the return confirmed), stuck (it landed with an error: an operator must look).
    "state" TEXT NOT NULL DEFAULT 'open' CHECK ("state" IN ('open', 'returned', 'stuck')),
    "error" TEXT,
    -- The return transaction's signature, once confirmed.
    "return_tx" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY ("chain", "signature", "memo_index"),
    CHECK (("state" = 'stuck') = ("error" IS NOT NULL))
);
CREATE INDEX "stray_deposits_open_idx" ON "stray_deposits"("created_at") WHERE "state" = 'open';
