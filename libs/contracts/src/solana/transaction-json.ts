import { z } from 'zod';

/**
 * A confirmed transaction as Solana JSON-RPC `getTransaction` returns it with `encoding: "json"`
 * (instruction data base58, accounts as indexes into the account keys), only the fields read: the
 * shape the chain watchers check an answer against and `@xchain/svm-orders` parses.
 */
export const SvmTransactionJsonSchema = z.object({
  slot: z.number().int().nonnegative(),
  blockTime: z.number().int().nullable().optional(),
  meta: z
    .object({
      err: z.unknown(),
      loadedAddresses: z
        .object({ writable: z.array(z.string()), readonly: z.array(z.string()) })
        .nullable()
        .optional(),
    })
    .nullable(),
  transaction: z.object({
    signatures: z.array(z.string()),
    message: z.object({
      accountKeys: z.array(z.string()),
      instructions: z.array(
        z.object({ programIdIndex: z.number().int().nonnegative(), accounts: z.array(z.number().int().nonnegative()), data: z.string() }),
      ),
    }),
  }),
});
export type SvmTransactionJson = z.output<typeof SvmTransactionJsonSchema>;
