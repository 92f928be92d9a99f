import type { LogSource } from '@xchain/chain-watch';
import type { OrderEvent } from '@xchain/contracts';
import type { Address } from 'viem';
import type { DepositChain, DepositedLog } from './deposit-chain';
import type { OrderEventPublisher } from './order-event-publisher';

/** The watcher name, which keys its saved position: a new router starts a new position. */
export function depositWatcherName(chainName: string, router: Address): string {
  return `deposits:${chainName}:${router.toLowerCase()}`;
}

/**
 * The `Deposited` events of one chain's router, each published as `orders.v1.deposited` with the
 * block's time. The message id names the log itself (chain, tx, log index), so re-reading a block
 * publishes nothing new.
 */
export function depositSource(chainName: string, router: Address, chain: DepositChain, publisher: OrderEventPublisher): LogSource<DepositedLog> {
  // Deposits often share a block; one getBlock per block is enough.
  let lastBlock: { number: bigint; time: Date } | undefined;
  const blockTime = async (n: bigint) => {
    if (lastBlock?.number !== n) lastBlock = { number: n, time: await chain.blockTime(n) };
    return lastBlock.time;
  };
  return {
    name: depositWatcherName(chainName, router),
    chainName,
    chain,
    read: (from, to) => chain.depositedLogs(router, from, to),
    async handle(log) {
      const event: OrderEvent = {
        type: 'deposited',
        quote_hash: log.quoteHash,
        chain: chainName,
        tx_hash: log.txHash,
        block_number: log.blockNumber.toString(),
        occurred_at: (await blockTime(log.blockNumber)).toISOString(),
      };
      return publisher.publish(event, `deposited:${chainName}:${log.txHash}:${log.logIndex}`);
    },
  };
}
