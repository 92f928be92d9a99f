import type { OrderEvent } from '@xchain/contracts';
import { SOL, associatedTokenAccount, readOrderSteps } from '@xchain/svm-orders';
import type { Logger } from '@xchain/telemetry';
import type { OrderEventPublisher } from './order-event-publisher';
import type { SignatureEntry, SolanaChain } from '@xchain/chain-watch';
import type { NewStrayDeposit } from '../settlement/stray-deposits.repository';
import { type StoredQuote, checkSolanaStep } from './solana-step-check';
import type { OrderParties } from './order-parties.repository';

/** The stored quotes, by hash (the quote-engine's database). */
export interface QuoteLookup {
  find(quoteHash: string): Promise<StoredQuote | undefined>;
}

export interface SolanaStepDeps {
  chainName: string;
  chain: SolanaChain;
  quotes: QuoteLookup;
  publisher: OrderEventPublisher;
  fillers: ReadonlySet<string>;
  /** The vault the registry names now (undefined: none): a deposit that paid it and matches nothing is recorded to be returned. */
  vault: () => string | undefined;
  strays: { record(s: NewStrayDeposit): Promise<boolean> };
  /** Records a deposit's paying account as a party of its order (ListOrders). */
  parties?: OrderParties;
  log: Pick<Logger, 'info' | 'warn'>;
}

/**
 * What becomes of one confirmed transaction: each order step it carries that matches its quote is
 * published as `orders.v1.<type>` with the slot, its blockhash and time, under the id
 * `<type>:<chain>:<signature>:<memo index>`, so reading the transaction again (another address,
 * a restart) publishes nothing new. A deposit that paid the vault but matches no retained quote
 * (D16) is recorded in `stray_deposits`, once, for settlement to send back; the vault's returns
 * (`xchain:v1:return:`) and claims to the treasury (`xchain:v1:claim:`) are passed over quietly;
 * other steps that do not match are logged and skipped. Throws when the cluster does not answer, so the caller reads the transaction again later.
 */
export function solanaStepHandler(deps: SolanaStepDeps): (entry: SignatureEntry) => Promise<void> {
  const blockhashes = new Map<number, string>();
  const blockhash = async (slot: number) => {
    let hash = blockhashes.get(slot);
    if (hash === undefined) {
      hash = await deps.chain.blockhash(slot);
      if (blockhashes.size >= 256) blockhashes.delete(blockhashes.keys().next().value!);
      blockhashes.set(slot, hash);
    }
    return hash;
  };
  return async (entry) => {
    if (entry.err !== null) return; // failed: moved nothing but its fee
    const tx = await deps.chain.transaction(entry.signature);
    if (!tx) throw new Error(`${entry.signature} is listed at confirmed but not served yet`);
    const { steps, refused } = readOrderSteps(tx);
    for (const r of refused)
      deps.log.warn(
        { chain: deps.chainName, tx_hash: entry.signature, log_index: r.index, quote_hash: r.quoteHash, reason: r.reason },
        'solana order memo skipped',
      );
    const blockTime = tx.blockTime ?? entry.blockTime;
    if (steps.length > 0 && (blockTime === null || blockTime === undefined)) throw new Error(`${entry.signature} has no block time yet`);
    for (const step of steps) {
      const check = checkSolanaStep(step, await deps.quotes.find(step.quoteHash), {
        chain: deps.chainName,
        fillers: deps.fillers,
        blockTime: blockTime!,
      });
      if (!check.ok) {
        const t = step.transfers[0];
        const vault = deps.vault();
        // Only a deposit into our vault is ours to send back; one paid elsewhere is someone else's business.
        if (check.stray && t && vault && t.to === (t.mint === SOL ? vault : associatedTokenAccount(vault, t.mint).toBase58())) {
          const stray = {
            chain: deps.chainName,
            signature: entry.signature,
            memoIndex: step.index,
            quoteHash: step.quoteHash,
            sender: t.authority,
            mint: t.mint,
            amount: t.amount,
            reason: check.stray,
            detail: check.reason,
            slot: tx.slot,
            blockTime: new Date(blockTime! * 1000),
          };
          if (await deps.strays.record(stray)) {
            deps.log.warn(
              {
                chain: deps.chainName,
                tx_hash: entry.signature,
                log_index: step.index,
                quote_hash: step.quoteHash,
                sender: t.authority,
                amount: t.amount.toString(),
                mint: t.mint,
                reason: check.stray,
                detail: check.reason,
              },
              'solana stray deposit recorded; it is returned to its sender',
            );
          }
          continue;
        }
        deps.log.warn(
          {
            chain: deps.chainName,
            tx_hash: entry.signature,
            log_index: step.index,
            quote_hash: step.quoteHash,
            kind: step.kind,
            reason: check.reason,
          },
          'solana order step skipped',
        );
        continue;
      }
      const event: OrderEvent = {
        type: check.type,
        quote_hash: step.quoteHash,
        chain: deps.chainName,
        tx_hash: entry.signature,
        block_number: String(tx.slot),
        block_hash: await blockhash(tx.slot),
        occurred_at: new Date(blockTime! * 1000).toISOString(),
        log_index: step.index,
        amount: check.amount.toString(),
      };
      const payer = step.transfers[0]?.authority;
      if (check.type === 'deposited' && payer && deps.parties) await deps.parties.depositor(step.quoteHash, payer);
      const outcome = await deps.publisher.publish(event, `${check.type}:${deps.chainName}:${entry.signature}:${step.index}`);
      if (outcome !== 'duplicate')
        deps.log.info(
          { chain: deps.chainName, tx_hash: entry.signature, log_index: step.index, quote_hash: step.quoteHash, type: check.type },
          'solana order step published',
        );
    }
  };
}
