import type { Hex, PublicClient } from 'viem';

export type BroadcastOutcome = 'sent' | 'known' | 'nonce_used' | 'underpriced' | { error: string };

/**
 * Sends a signed transaction. "already known" means the node has it (sent before a crash, or by a
 * rebroadcast): fine. "nonce too low" means some transaction with this nonce was mined: the caller
 * looks for which one before deciding anything. "underpriced" (its fee cap is below the base fee
 * now, or a replacement offers too little) calls for a replacement. Other failures (RPC down) are
 * reported, not thrown.
 */
export async function broadcast(client: PublicClient, raw: Hex): Promise<BroadcastOutcome> {
  try {
    await client.sendRawTransaction({ serializedTransaction: raw });
    return 'sent';
  } catch (err) {
    const text = errorText(err).toLowerCase();
    if (text.includes('already known') || text.includes('already imported') || text.includes('known transaction')) return 'known';
    if (text.includes('nonce too low') || text.includes('nonce has already been used') || text.includes('invalid nonce'))
      return 'nonce_used';
    if (
      text.includes('underpriced') ||
      text.includes('replacement transaction') ||
      text.includes('less than block base fee') ||
      text.includes('fee too low') ||
      text.includes('fee cap')
    ) {
      return 'underpriced';
    }
    return { error: errorText(err).split('\n')[0]! };
  }
}

/** viem's message with the node's own words (`details`) first: those say why. */
function errorText(err: unknown): string {
  if (err instanceof Error) {
    const details = (err as { details?: string }).details;
    return details ? `${details} (${err.message.split('\n')[0]})` : err.message;
  }
  return String(err);
}
