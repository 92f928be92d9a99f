import { z } from 'zod';
import { AmountString, ChainName, Uint64String } from '../wire';

export const ChainSchema = z
  .object({
    chain: ChainName,
    chain_id: Uint64String.meta({ description: 'EIP-155 chain id; Solana uses 792703809.' }),
    vm: z.enum(['evm', 'svm']),
    native_symbol: z.string(),
    native_decimals: z.number().int().min(0).max(255),
    enabled: z.boolean().meta({ description: 'False while quoting on this chain is disabled by the operator.' }),
    gasless: z.boolean().meta({ description: 'Gasless quotes may use this chain as their source.' }),
    max_gas_drop: AmountString.meta({ description: 'Cap of `gas_drop` in native base units.' }),
    deposit_target: z.string().meta({ description: 'Router contract (EVM) or program id (Solana) that deposits go to.' }),
    gasless_executor: z.string().optional().meta({ description: 'EVM contract relayed deposits execute against; the Permit2 spender.' }),
    fee_payer: z.string().optional().meta({ description: 'Solana account that pays the fees of relayed transactions.' }),
    explorer_tx_url: z.string().optional().meta({
      description:
        "The chain's block explorer page of a transaction: a URL template in which `{tx}` stands for the transaction hash (Solana: its signature). Absent when the chain has none (a local chain).",
    }),
  })
  .meta({ id: 'Chain' });
export type Chain = z.infer<typeof ChainSchema>;

export const ListChainsResponse = z.object({ chains: z.array(ChainSchema) }).meta({ id: 'ListChainsResponse' });
export type ListChainsResponse = z.infer<typeof ListChainsResponse>;
