-- Claims from Solana (D15, issue 44 §3): a filled order's deposit in the Solana vault is now claimed to
-- the treasury like an EVM router's. Fills from Solana settled before this were left without a claim
-- (their deposits still in the vault, shown as `open` by the settlement report): they are due now,
-- and the next claim pass batches them. Only settled fills are touched (the claim CHECK requires it).
UPDATE "settlements" s
SET "claim" = 'due', "updated_at" = now()
FROM "chains" c
WHERE c."name" = s."src_chain" AND c."vm" = 'svm'
  AND s."decision" = 'fill' AND s."state" = 'done' AND s."claim" IS NULL;
