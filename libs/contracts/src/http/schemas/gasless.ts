import { z } from 'zod';

export const SubmitGaslessOrderRequest = z
  .object({
    quote_hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
    evm: z
      .object({
        owner: z.string().meta({ description: 'Token owner who signed the Permit2 transfer.' }),
        permit2_nonce: z.string().meta({ description: 'Permit2 nonce (uint256, decimal).' }),
        deadline: z.string().meta({ description: 'Permit2 deadline, unix seconds (decimal).' }),
        signature: z.string().meta({ description: 'Signature of the PermitWitnessTransferFrom (0x hex).' }),
        permit_signature: z.string().optional().meta({ description: 'EIP-2612 permit of src_token to Permit2, for tokens listed with `permit: true`.' }),
      })
      .optional()
      .meta({ description: 'For an EVM source.' }),
    svm: z
      .object({ tx_base64: z.string().meta({ description: "Transaction signed by the user except for the quote's fee payer slot." }) })
      .optional()
      .meta({ description: 'For a Solana source.' }),
  })
  .meta({ id: 'SubmitGaslessOrderRequest' });

export const GaslessOrderResultSchema = z
  .object({
    quote_hash: z.string(),
    status: z.enum(['queued', 'submitted', 'confirmed', 'failed']).meta({ description: 'Terminal: `confirmed`, `failed` (D7).' }),
    tx_hash: z.string().optional().meta({ description: 'Set from `submitted` on.' }),
    error: z.string().optional().meta({ description: 'On `failed`: a stable reason code first, e.g. `INVALID_SIGNATURE: …`.' }),
  })
  .meta({ id: 'GaslessOrderResult' });
