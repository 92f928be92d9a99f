import type { HandledStep, LogSource } from '@xchain/chain-watch';
import type { OrderEvent } from '@xchain/contracts';
import type { Address } from 'viem';
import type { ChainStepStore } from './chain-steps.repository';
import type { DepositChain, RouterLog } from './deposit-chain';
import type { OrderEventPublisher } from './order-event-publisher';
import type { OrderParties } from './order-parties.repository';

/** The watcher name, which keys its saved position: a new router starts a new position. */
export function depositWatcherName(chainName: string, router: Address): string {
  return `deposits:${chainName}:${router.toLowerCase()}`;
}

/** The message id of a step: one per log of one block (the same transaction mined again elsewhere is another step). */
const stepMsgId = (e: Pick<OrderEvent, 'type' | 'chain' | 'tx_hash'>, s: Pick<HandledStep, 'logIndex' | 'blockHash'>) =>
  `${e.type}:${e.chain}:${e.tx_hash}:${s.logIndex}:${s.blockHash.toLowerCase()}`;

/**
 * The router events of one chain (`Deposited`, `Filled`, `Refunded`), each published as
 * `orders.v1.deposited|fulfilled|refunded` with the block's time, then remembered in
 * `chain_steps`. The message id names the log itself (chain, tx, log index, block), so re-reading
 * a block publishes nothing new; a step a deep reorg dropped is withdrawn with `removed: true`.
 * A deposit's depositor is recorded as a party of its order (`parties`).
 */
export function depositSource(
  chainName: string,
  router: Address,
  chain: DepositChain,
  publisher: OrderEventPublisher,
  steps?: ChainStepStore,
  parties?: OrderParties,
): LogSource<RouterLog> {
  const name = depositWatcherName(chainName, router);
  // Steps often share a block; one getBlock per block is enough.
  let lastBlock: { number: bigint; time: Date } | undefined;
  const blockTime = async (n: bigint) => {
    if (lastBlock?.number !== n) lastBlock = { number: n, time: await chain.blockTime(n) };
    return lastBlock.time;
  };
  return {
    name,
    chainName,
    chain,
    read: (from, to) => chain.routerLogs(router, from, to),
    async handle(log) {
      const event: OrderEvent = {
        type: log.kind,
        quote_hash: log.quoteHash,
        chain: chainName,
        tx_hash: log.txHash,
        block_number: log.blockNumber.toString(),
        occurred_at: (await blockTime(log.blockNumber)).toISOString(),
        log_index: log.logIndex,
        amount: log.amount.toString(),
        ...(log.kind === 'fulfilled' ? { recipient: log.recipient } : {}),
        ...(log.blockHash ? { block_hash: log.blockHash.toLowerCase() } : {}),
      };
      if (log.kind === 'deposited' && parties) await parties.depositor(log.quoteHash, log.depositor);
      const blockHash = log.blockHash ?? '0x';
      const outcome = await publisher.publish(
        event,
        log.blockHash ? stepMsgId(event, { logIndex: log.logIndex, blockHash }) : `${log.kind}:${chainName}:${log.txHash}:${log.logIndex}`,
      );
      if (steps && log.blockHash)
        await steps.record(name, {
          txHash: log.txHash,
          logIndex: log.logIndex,
          blockNumber: log.blockNumber,
          blockHash: log.blockHash,
          event,
        });
      return outcome;
    },
    ...(steps
      ? {
          steps: {
            since: (block) => steps.since(name, block),
            async withdraw(step) {
              const [known] = (await steps.since(name, step.blockNumber - 1n)).filter(
                (s) =>
                  s.txHash === step.txHash && s.logIndex === step.logIndex && s.blockHash.toLowerCase() === step.blockHash.toLowerCase(),
              );
              if (known) {
                const removed: OrderEvent = { ...known.event, removed: true };
                await publisher.publish(removed, `withdrawn:${stepMsgId(known.event, step)}`);
              }
              await steps.markWithdrawn(name, step);
            },
          },
        }
      : {}),
  };
}
