-- A gasless order whose relay failed for good (the relayer's `failed`) before any deposit: the
-- order view's terminal `failed` with its reason (D18). Recorded once, from the relayer's status
-- event; `quotes.status` is 'failed' while no step was recorded. Issue 44 §2.
ALTER TABLE "quotes" ADD COLUMN "failure_reason" TEXT;
ALTER TABLE "quotes" ADD COLUMN "failure_message" TEXT;
ALTER TABLE "quotes" ADD COLUMN "failed_at" TIMESTAMPTZ(3);
