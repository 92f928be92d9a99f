-- Gasless orders from Solana (D6). Such an order is one transaction, signed by the user and
-- co-signed by the fee payer, stored whole before it is sent: its id (the fee payer's signature)
-- is known before the send, so a restart polls that signature and never builds another.
ALTER TABLE "gasless_orders" ADD COLUMN "vm" TEXT NOT NULL DEFAULT 'evm' CHECK ("vm" IN ('evm', 'svm'));
ALTER TABLE "gasless_orders" ADD COLUMN "svm_tx" TEXT;
ALTER TABLE "gasless_orders" ADD COLUMN "svm_signature" TEXT;
-- The Permit2 fields and the executor call exist only for EVM orders.
ALTER TABLE "gasless_orders"
    ALTER COLUMN "permit2_nonce" DROP NOT NULL,
    ALTER COLUMN "deadline" DROP NOT NULL,
    ALTER COLUMN "executor" DROP NOT NULL,
    ALTER COLUMN "calldata" DROP NOT NULL;
ALTER TABLE "gasless_orders" ADD CONSTRAINT "gasless_orders_vm_fields_check" CHECK (
    ("vm" = 'evm' AND "permit2_nonce" IS NOT NULL AND "deadline" IS NOT NULL AND "executor" IS NOT NULL AND "calldata" IS NOT NULL)
    OR ("vm" = 'svm' AND "svm_tx" IS NOT NULL AND "svm_signature" IS NOT NULL));
-- A submitted EVM order always has its nonce; a Solana transaction has none (its blockhash bounds it).
ALTER TABLE "gasless_orders" DROP CONSTRAINT "gasless_orders_check";
ALTER TABLE "gasless_orders" ADD CONSTRAINT "gasless_orders_nonce_check" CHECK ("vm" = 'svm' OR "status" = 'queued' OR "tx_nonce" IS NOT NULL OR "status" = 'failed');
-- One order per Solana transaction: the same signed transaction can never back two quotes.
CREATE UNIQUE INDEX "gasless_orders_svm_signature_key" ON "gasless_orders"("svm_signature") WHERE "svm_signature" IS NOT NULL;
