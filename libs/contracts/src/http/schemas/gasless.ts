import { z } from 'zod';

const QuoteHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/);

export const SubmitGaslessOrderRequest = z
  .object({
    quote_hash: QuoteHash,
    evm: z
      .object({
        owner: z.string().meta({ description: 'Token owner who signed the Permit2 transfer.' }),
        permit2_nonce: z.string().meta({ description: "Permit2 nonce (uint256, decimal): the quote's `permit2.message.nonce`." }),
        deadline: z.string().meta({ description: "Permit2 deadline, unix seconds (decimal): the quote's `permit2.message.deadline`." }),
        signature: z.string().meta({ description: 'Signature of the PermitWitnessTransferFrom (0x hex, 65 bytes).' }),
        permit_signature: z
          .string()
          .optional()
          .meta({ description: "EIP-2612 permit of src_token to Permit2 (the quote's `erc2612`), for tokens listed with `permit: true`." }),
      })
      .optional()
      .meta({ description: 'For an EVM source.' }),
    svm: z
      .object({
        tx_base64: z.string().meta({
          description:
            "The quote's `svm.tx_base64` signed by the user: a legacy transaction (base64) whose fee payer is the quote's `fee_payer`, whose slot stays empty (the relayer co-signs). Refused unless the fee payer appears in no instruction, every other signer's signature verifies, the instructions are exactly the quote's deposit, its blockhash is still valid (else BLOCKHASH_EXPIRED: sign again) and it simulates.",
        }),
      })
      .optional()
      .meta({ description: 'For a Solana source.' }),
  })
  .meta({ id: 'SubmitGaslessOrderRequest' });
export type SubmitGaslessOrderRequest = z.infer<typeof SubmitGaslessOrderRequest>;

export const GaslessStatus = z
  .enum(['queued', 'submitted', 'confirmed', 'failed'])
  .meta({ description: 'Terminal: `confirmed`, `failed` (D7).' });
export type GaslessStatus = z.infer<typeof GaslessStatus>;

export const GaslessOrderResultSchema = z
  .object({
    quote_hash: z.string(),
    status: GaslessStatus,
    tx_hash: z
      .string()
      .optional()
      .meta({ description: 'Set from `submitted` on: the latest transaction sent (a replacement replaces it).' }),
    error: z.string().optional().meta({ description: 'On `failed`: a stable reason code first, e.g. `TX_REVERTED: …`.' }),
  })
  .meta({ id: 'GaslessOrderResult' });
export type GaslessOrderResult = z.infer<typeof GaslessOrderResultSchema>;

/** The relay result as the order view shows it: every transaction sent, replacements included. */
export const GaslessOrderViewSchema = GaslessOrderResultSchema.extend({
  tx_hashes: z
    .array(z.string())
    .meta({ description: 'Every transaction sent for this order, oldest first; a receipt for any of them settles it.' }),
}).meta({ id: 'GaslessOrderView' });
export type GaslessOrderView = z.infer<typeof GaslessOrderViewSchema>;
