-- Webhook secrets are stored encrypted (AES-256-GCM): the key is in the service's configuration,
-- not in the database, so the clear secrets already stored are encrypted by the service itself
-- when it starts, which then empties "secret". A later migration drops that column.
ALTER TABLE "webhooks" ALTER COLUMN "secret" SET DEFAULT '';
ALTER TABLE "webhooks" ADD COLUMN "secret_key_id" TEXT;
ALTER TABLE "webhooks" ADD COLUMN "secret_iv" BYTEA;
ALTER TABLE "webhooks" ADD COLUMN "secret_tag" BYTEA;
ALTER TABLE "webhooks" ADD COLUMN "secret_ciphertext" BYTEA;
