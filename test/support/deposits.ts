import { approveCalldata, depositTx } from '@xchain/evm-gasless';
import { orderFromWire } from '@xchain/order-codec';
import { type Address, maxUint256 } from 'viem';
import type { GaslessClient } from './gasless-client';

/** What a deposit needs of a quote: its hash, its order as the answer carries it, and what goes in. */
export interface DepositableQuote {
  quote_hash: string;
  order: Parameters<typeof orderFromWire>[0];
  amount_in: string;
}

/**
 * A new wallet deposits the quote on `chain` (anvil) with the router's deposit, as a user's wallet
 * would: funded with `token` and gas, the router approved. Resolves with the payer once the order
 * view says deposited: from then on the quote is an order, in the lists (issue 45).
 */
export async function depositQuote(g: GaslessClient, chain: string, router: Address, token: Address, q: DepositableQuote) {
  const payer = g.newUser();
  await g.mint(chain, token, payer.address, BigInt(q.amount_in));
  await g.setNativeBalance(chain, payer.address, 10n ** 17n);
  await g.send(chain, { to: token, data: approveCalldata(router, maxUint256) }, payer);
  const receipt = await g.send(chain, depositTx(orderFromWire(q.order).order, router), payer);
  expect(receipt.status).toBe('success');
  await g.waitOrder(q.quote_hash, (v) => v.status === 'deposited');
  return payer;
}
