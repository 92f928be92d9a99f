-- Where a fulfilment's tokens went, as the router's Filled event names it: the order view tells a
-- destination call that ran (the target) from one that fell back (the recipient). Issue 39 §4.
ALTER TABLE "order_events" ADD COLUMN "recipient" TEXT;
