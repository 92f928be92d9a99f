-- The block explorer page of a transaction, per chain (issue 48): a URL template with `{tx}` where
-- the hash goes, seeded from registry.json's `explorer_tx_url`; the order explorer links each step to it.
ALTER TABLE "chains" ADD COLUMN "explorer_tx_url" TEXT;
