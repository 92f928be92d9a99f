import { type Address, BaseError, type Hex, type PublicClient, numberToHex } from 'viem';
import { revertReasonOfData } from '../chain/revert-reason';

/** One call a lane's wallet sends: where, what, and the native value with it. */
export interface LaneCall {
  to: Address;
  data: Hex;
  value: bigint;
}

/** What the simulation says of one call: the gas it used, or why it reverted. */
export type CallOutcome = { ok: true; gasUsed: bigint } | { ok: false; reason: string };

/**
 * Runs `ahead` and then `calls`, one after another from `wallet`, in one simulated block on top
 * of block `at` (eth_simulateV1), and says how each of `calls` ends: the state each call sees is
 * the state its transaction will see, behind every transaction of the wallet with a lower nonce
 * (`ahead`: sent but not yet mined at `at`, then the calls before it). A call that reverts changes
 * nothing but its sender's nonce, so the calls after it are judged as if it were left out.
 * 'unsupported' when the node does not serve eth_simulateV1; an RPC failure throws.
 */
export async function simulateInOrder(
  client: PublicClient,
  wallet: Address,
  at: bigint,
  ahead: readonly LaneCall[],
  calls: readonly LaneCall[],
): Promise<CallOutcome[] | 'unsupported'> {
  if (calls.length === 0) return [];
  const asCall = (c: LaneCall) => ({ from: wallet, to: c.to, data: c.data, value: numberToHex(c.value) });
  let blocks: SimulatedBlock[];
  try {
    blocks = (await client.request({
      method: 'eth_simulateV1' as never,
      params: [
        // validation false: no nonce, balance or fee checks (the nonces are ours to give; gas is the
        // wallet's own concern). A few calls per simulated block (the state carries from one to the
        // next), so a long queue never runs out of one block's gas.
        { blockStateCalls: chunks([...ahead, ...calls].map(asCall), CALLS_PER_BLOCK).map((c) => ({ calls: c })), validation: false },
        numberToHex(at),
      ] as never,
    })) as SimulatedBlock[];
  } catch (err) {
    if (notServed(err)) return 'unsupported';
    throw err;
  }
  const results = blocks.flatMap((b) => b.calls);
  if (results.length !== ahead.length + calls.length)
    throw new Error(`eth_simulateV1 answered ${results.length} call results for ${ahead.length + calls.length} calls`);
  return results.slice(ahead.length).map((r): CallOutcome => {
    if (r.status === '0x1') return { ok: true, gasUsed: BigInt(r.gasUsed) };
    const data = (r.error?.data ?? r.returnData) as Hex | undefined;
    return { ok: false, reason: data && data !== '0x' ? revertReasonOfData(data) : (r.error?.message ?? 'execution reverted') };
  });
}

/** At most this many calls in one simulated block: 8 fills with the largest destination call (2,000,000 gas) fit in 30M. */
const CALLS_PER_BLOCK = 8;

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

interface SimulatedBlock {
  calls: { status: string; gasUsed: Hex; returnData?: Hex; error?: { code?: number; message?: string; data?: Hex } }[];
}

/** JSON-RPC "method not found" (-32601) or "method not supported" (-32004), or a node that says so in words. */
function notServed(err: unknown): boolean {
  const found =
    err instanceof BaseError
      ? err.walk((e) => {
          const code = (e as { code?: unknown }).code;
          return code === -32601 || code === -32004;
        })
      : null;
  if (found) return true;
  const text = err instanceof Error ? err.message : String(err);
  return /eth_simulateV1/i.test(text) && /not (found|supported|available|exist)|unsupported|unknown method/i.test(text);
}
