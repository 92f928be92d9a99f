-- A pushed order view's version is claimed, with the update itself, before it is published: the
-- update waits here until it is known to be on the stream (then NULL), so any replica can finish it.
ALTER TABLE "order_view_pushes" ADD COLUMN "pending" JSONB;
