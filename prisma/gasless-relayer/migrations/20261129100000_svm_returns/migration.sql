-- Returns of stray Solana deposits (D16): a deposit that matched no retained quote goes back to its
-- sender from the vault, once. Its row is keyed `return-<keccak256 of chain:signature:index>`, and
-- it is built, stored and sent like the other Solana operator transactions.
ALTER TABLE "gasless_orders" DROP CONSTRAINT "gasless_orders_kind_check";
ALTER TABLE "gasless_orders" ADD CONSTRAINT "gasless_orders_kind_check" CHECK ("kind" IN ('gasless', 'fill', 'cancel', 'refund', 'claim', 'return'));
ALTER TABLE "gasless_orders" DROP CONSTRAINT "gasless_orders_vm_fields_check";
ALTER TABLE "gasless_orders" ADD CONSTRAINT "gasless_orders_vm_fields_check" CHECK (
    ("kind" = 'gasless' AND "vm" = 'evm' AND "permit2_nonce" IS NOT NULL AND "deadline" IS NOT NULL AND "executor" IS NOT NULL AND "calldata" IS NOT NULL)
    OR ("kind" = 'gasless' AND "vm" = 'svm' AND "svm_tx" IS NOT NULL AND "svm_signature" IS NOT NULL)
    OR ("kind" NOT IN ('gasless', 'return') AND "vm" = 'evm' AND "executor" IS NOT NULL AND "calldata" IS NOT NULL AND "order_hash" IS NOT NULL)
    OR ("kind" IN ('fill', 'refund', 'return') AND "vm" = 'svm' AND "svm_tx" IS NOT NULL AND "svm_signature" IS NOT NULL AND "order_hash" IS NOT NULL));
