-- Solana operator transactions (D15): a fill or a refund on Solana is built and signed by the
-- relayer from the order and stored whole before it is sent, like a gasless Solana order, so the
-- Solana relay sends and follows both kinds of row alike. Cancels and claims exist only on EVM routers.
ALTER TABLE "gasless_orders" DROP CONSTRAINT "gasless_orders_vm_fields_check";
ALTER TABLE "gasless_orders" ADD CONSTRAINT "gasless_orders_vm_fields_check" CHECK (
    ("kind" = 'gasless' AND "vm" = 'evm' AND "permit2_nonce" IS NOT NULL AND "deadline" IS NOT NULL AND "executor" IS NOT NULL AND "calldata" IS NOT NULL)
    OR ("kind" = 'gasless' AND "vm" = 'svm' AND "svm_tx" IS NOT NULL AND "svm_signature" IS NOT NULL)
    OR ("kind" <> 'gasless' AND "vm" = 'evm' AND "executor" IS NOT NULL AND "calldata" IS NOT NULL AND "order_hash" IS NOT NULL)
    OR ("kind" IN ('fill', 'refund') AND "vm" = 'svm' AND "svm_tx" IS NOT NULL AND "svm_signature" IS NOT NULL AND "order_hash" IS NOT NULL));
-- An operator transaction whose blockhash expired unseen can never land, so it is signed again over
-- a new blockhash: svm_tx and svm_signature are replaced, and the signatures sent before are kept
-- here, oldest first. gasless_orders_svm_signature_key still holds: each new signature is over a
-- new message, so it is as unique as any other.
ALTER TABLE "gasless_orders" ADD COLUMN "svm_expired_signatures" TEXT[] NOT NULL DEFAULT '{}';
