import { z } from 'zod';
import { ChainName, Uint64String } from '../wire';

export const TokenTier = z.enum(['stable', 'major', 'long_tail']).meta({
  description:
    'Liquidity tier: `stable` (USD stablecoins), `major` (natives, wrapped natives, WETH, WBTC), `long_tail` (everything else). Sets the default slippage tier.',
});

export const TokenSchema = z
  .object({
    chain: ChainName,
    chain_id: Uint64String,
    address: z.string().meta({
      description: 'EIP-55 address on EVM chains (zero address = native asset); base58 mint on Solana (all-zero key = native SOL).',
    }),
    tier: TokenTier,
    symbol: z.string(),
    decimals: z.number().int().min(0).max(255),
    logo_url: z.string(),
    permit: z.boolean().meta({ description: 'The token implements EIP-2612 permit, so a gasless order can carry `permit_signature`.' }),
  })
  .meta({ id: 'Token' });
export type Token = z.infer<typeof TokenSchema>;

export const ListTokensResponse = z.object({ tokens: z.array(TokenSchema) }).meta({ id: 'ListTokensResponse' });
export type ListTokensResponse = z.infer<typeof ListTokensResponse>;
