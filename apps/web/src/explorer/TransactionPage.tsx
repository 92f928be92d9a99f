import type { XchainClient } from '@xchain/client';
import type { Registry } from '../shared/registry';
import { Lookup } from './OrderPage';
import { useOrder } from './useOrder';

/** `/explorer/tx/<signature>`: the order(s) of a Solana transaction. */
export function TransactionPage({ api, registry, tx }: { api: XchainClient; registry: Registry | undefined; tx: string }) {
  return <Lookup state={useOrder(api, tx, true)} registry={registry} what={tx} />;
}
