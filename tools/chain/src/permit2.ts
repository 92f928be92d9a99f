import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '@xchain/stack';
import { type Address, type Hex, createTestClient, http } from 'viem';

/** The canonical Permit2, at the same address on every chain. */
const PERMIT2: Address = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
/** Uniswap's own test helper holds the canonical runtime bytecode (MIT); we read it, never copy it. */
const SOURCE = 'node_modules/@uniswap/v4-periphery/lib/permit2/test/utils/DeployPermit2.sol';

let runtime: Hex | undefined;

/** The canonical Permit2 runtime bytecode, parsed from the `hex"…"` literal in Uniswap's helper. */
export function permit2RuntimeCode(): Hex {
  if (runtime) return runtime;
  const match = /hex"([0-9a-fA-F]+)"/.exec(readFileSync(join(ROOT, SOURCE), 'utf8'));
  if (!match?.[1]) throw new Error(`no Permit2 bytecode literal in ${SOURCE}`);
  runtime = `0x${match[1].toLowerCase()}`;
  return runtime;
}

/**
 * Places the canonical Permit2 at its canonical address on an anvil node. Its domain separator
 * is cached for chain id 31337 at another address, so it is rebuilt for the real address on any
 * other chain id, and every signature fails on 31337: use 1, 8453, 42161 and so on.
 */
export async function installPermit2(rpcUrl: string): Promise<void> {
  const client = createTestClient({ mode: 'anvil', transport: http(rpcUrl) });
  await client.setCode({ address: PERMIT2, bytecode: permit2RuntimeCode() });
}
