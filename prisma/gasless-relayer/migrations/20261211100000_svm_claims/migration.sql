-- Claims on Solana (D15): the vault pays the deposits of a batch of filled orders to the treasury,
-- once per batch. The row is keyed `claim-<batch key>` (keccak256 of the batch's quote hashes) and is
-- built, stored and sent like the other Solana operator transactions.
ALTER TABLE "gasless_orders" DROP CONSTRAINT "gasless_orders_vm_fields_check";
ALTER TABLE "gasless_orders" ADD CONSTRAINT "gasless_orders_vm_fields_check" CHECK (
    ("kind" = 'gasless' AND "vm" = 'evm' AND "permit2_nonce" IS NOT NULL AND "deadline" IS NOT NULL AND "executor" IS NOT NULL AND "calldata" IS NOT NULL)
    OR ("kind" = 'gasless' AND "vm" = 'svm' AND "svm_tx" IS NOT NULL AND "svm_signature" IS NOT NULL)
    OR ("kind" NOT IN ('gasless', 'return') AND "vm" = 'evm' AND "executor" IS NOT NULL AND "calldata" IS NOT NULL AND "order_hash" IS NOT NULL)
    OR ("kind" IN ('fill', 'refund', 'return', 'claim') AND "vm" = 'svm' AND "svm_tx" IS NOT NULL AND "svm_signature" IS NOT NULL AND "order_hash" IS NOT NULL));
