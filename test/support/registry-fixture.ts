/** Addresses of the seeded registry (config/registry.json) used across the suites. */
export const T = {
  ethereum: {
    ETH: '0x0000000000000000000000000000000000000000',
    USDC: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    WETH: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    PEPE: '0x6982508145454Ce325dDbE47a25d4ec3d2311933',
  },
  arbitrum: { USDC: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831', ETH: '0x0000000000000000000000000000000000000000' },
  optimism: { WBTC: '0x68f180fcCe6836688e9084f035309E29Bf0A2095' },
  base: { USDC: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' },
  bsc: { USDT: '0x55d398326f99059fF775485246999027B3197955' },
  solana: {
    SOL: '11111111111111111111111111111111',
    USDC: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
    BONK: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
  },
} as const;

export const EVM_USER = '0x1111111111111111111111111111111111111111';
export const EVM_REFUND = '0x2222222222222222222222222222222222222222';
export const SOL_USER = '9oYJrz36faTDZJ2JTt2QoCD4eeUhJdqMzNysu4Rb2nR7';

/** The plainest quote request: 1,000 USDC from Ethereum to Arbitrum, exact input (no addresses). */
export const USDC_ETH_TO_ARB = {
  src_chain: 'ethereum',
  dst_chain: 'arbitrum',
  src_token: T.ethereum.USDC,
  dst_token: T.arbitrum.USDC,
  trade_type: 'TRADE_TYPE_EXACT_INPUT',
  amount: '1000000000',
  gas_drop: '',
} as const;
