import { ERC20_PERMIT_ABI, PERMIT2_ABI, PERMIT2_ADDRESS, permit2NonceSlot } from '@xchain/evm-gasless';
import type { Address, PublicClient } from 'viem';

/** Whether `owner` already used Permit2 nonce `nonce` (its bit in the unordered bitmap is set). */
export async function permit2NonceUsed(client: PublicClient, owner: Address, nonce: bigint): Promise<boolean> {
  const { wordPos, bit } = permit2NonceSlot(nonce);
  const word = await client.readContract({
    address: PERMIT2_ADDRESS,
    abi: PERMIT2_ABI,
    functionName: 'nonceBitmap',
    args: [owner, wordPos],
  });
  return (word & bit) !== 0n;
}

export async function balanceAndAllowance(
  client: PublicClient,
  token: Address,
  owner: Address,
): Promise<{ balance: bigint; allowance: bigint }> {
  const [balance, allowance] = await Promise.all([
    client.readContract({ address: token, abi: ERC20_PERMIT_ABI, functionName: 'balanceOf', args: [owner] }),
    client.readContract({ address: token, abi: ERC20_PERMIT_ABI, functionName: 'allowance', args: [owner, PERMIT2_ADDRESS] }),
  ]);
  return { balance, allowance };
}

/**
 * The EIP-712 domain name and version of an EIP-2612 token: EIP-5267 `eip712Domain()` where the
 * token has it, else `name()` and `version()`, else version "1" (OpenZeppelin's default).
 */
export async function permitDomain(client: PublicClient, token: Address): Promise<{ name: string; version: string }> {
  try {
    const [, name, version] = await client.readContract({ address: token, abi: ERC20_PERMIT_ABI, functionName: 'eip712Domain' });
    return { name, version };
  } catch {
    const name = await client.readContract({ address: token, abi: ERC20_PERMIT_ABI, functionName: 'name' });
    const version = await client.readContract({ address: token, abi: ERC20_PERMIT_ABI, functionName: 'version' }).catch(() => '1');
    return { name, version };
  }
}

export function permitNonce(client: PublicClient, token: Address, owner: Address): Promise<bigint> {
  return client.readContract({ address: token, abi: ERC20_PERMIT_ABI, functionName: 'nonces', args: [owner] });
}
