import { readFileSync } from 'node:fs';
import { type Hex, isHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';

/**
 * `devnet sign <private-key> [quote.json]`: what a wallet does with a gasless EVM quote, for trying
 * the flow by hand against the local chains. Reads a GetQuote answer (a file, or stdin), signs its
 * `permit2` typed data (and `erc2612`, when the quote carries it) exactly as served, and prints
 * the SubmitGaslessOrder body. Dev keys only: a real key belongs in a wallet, not in a command line.
 */
export async function sign(args: string[]): Promise<number> {
  const [key, file] = args;
  if (!key || !isHex(key) || key.length !== 66 || args.length > 2) {
    process.stderr.write('usage: devnet sign <private-key> [quote.json]   (the quote on stdin when no file is named)\n');
    return 2;
  }
  let quote: { cross_chain?: { quote_hash?: string; permit2?: { message: { nonce: string; deadline: string } }; erc2612?: unknown } };
  try {
    quote = JSON.parse(readFileSync(file ?? 0, 'utf8'));
  } catch (err) {
    process.stderr.write(`the quote is not JSON: ${err instanceof Error ? err.message : String(err)}\n`);
    return 1;
  }
  const q = quote.cross_chain;
  if (!q?.quote_hash || !q.permit2) {
    process.stderr.write('this is not a gasless EVM quote (no cross_chain.permit2): ask GetQuote with "gasless": true from an EVM chain\n');
    return 1;
  }
  const account = privateKeyToAccount(key as Hex);
  const signTyped = (typed: unknown) => account.signTypedData(typed as Parameters<typeof account.signTypedData>[0]);
  const body = {
    quote_hash: q.quote_hash,
    evm: {
      owner: account.address,
      permit2_nonce: q.permit2.message.nonce,
      deadline: q.permit2.message.deadline,
      signature: await signTyped(q.permit2),
      ...(q.erc2612 ? { permit_signature: await signTyped(q.erc2612) } : {}),
    },
  };
  process.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
  return 0;
}
