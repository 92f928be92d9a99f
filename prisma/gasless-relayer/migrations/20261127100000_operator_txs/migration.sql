-- Operator transactions (D15): the fills, cancels, refunds and claims of settlement go through the
-- same per-wallet lanes as gasless deposits, so one table owns every nonce a wallet signs. Such a
-- row's key (quote_hash) is `<kind>-<quote hash>`: at most one transaction of each kind per order.
ALTER TABLE "gasless_orders" ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'gasless' CHECK ("kind" IN ('gasless', 'fill', 'cancel', 'refund', 'claim'));
-- The quote hash an operator transaction settles, and the native value it sends.
ALTER TABLE "gasless_orders" ADD COLUMN "order_hash" TEXT;
ALTER TABLE "gasless_orders" ADD COLUMN "value" DECIMAL(78,0) NOT NULL DEFAULT 0;
ALTER TABLE "gasless_orders" DROP CONSTRAINT "gasless_orders_vm_fields_check";
ALTER TABLE "gasless_orders" ADD CONSTRAINT "gasless_orders_vm_fields_check" CHECK (
    ("kind" = 'gasless' AND "vm" = 'evm' AND "permit2_nonce" IS NOT NULL AND "deadline" IS NOT NULL AND "executor" IS NOT NULL AND "calldata" IS NOT NULL)
    OR ("kind" = 'gasless' AND "vm" = 'svm' AND "svm_tx" IS NOT NULL AND "svm_signature" IS NOT NULL)
    OR ("kind" <> 'gasless' AND "vm" = 'evm' AND "executor" IS NOT NULL AND "calldata" IS NOT NULL AND "order_hash" IS NOT NULL));
CREATE UNIQUE INDEX "gasless_orders_kind_order_key" ON "gasless_orders"("kind", "order_hash") WHERE "order_hash" IS NOT NULL;
