/** The PreviewQuote request every bench sends: 0.1 ETH on Ethereum for USDC on Arbitrum, exact input. */
export const PREVIEW_REQUEST = {
  src_chain: 'ethereum',
  dst_chain: 'arbitrum',
  src_token: '0x0000000000000000000000000000000000000000',
  dst_token: '0xaf88d065e77c8cC2239327C5EDb3A432268e5831',
  trade_type: 'TRADE_TYPE_EXACT_INPUT',
  amount: '100000000000000000',
  gas_drop: '',
};

/** What GetQuote adds to it: the addresses that bind the quote. */
export const BOUND = {
  recipient: '0x1111111111111111111111111111111111111111',
  refund_address: '0x2222222222222222222222222222222222222222',
};
