-- AlterTable: the status of the last order view pushed, so the expiry sweep finds the quotes whose
-- retention ended without `expired` pushed, and the purge deletes them only once it was (D16).
-- NULL on rows pushed before: read as "not expired", so those are swept (and pushed) once more.
ALTER TABLE "order_view_pushes" ADD COLUMN "status" TEXT;
