import { GASLESS_EXECUTOR_ABI, XCHAIN_ROUTER_ABI } from '@xchain/evm-gasless';
import { BaseError, type Hex, decodeErrorResult } from 'viem';

/** Errors the executor's call can revert with: ours, Permit2's and OpenZeppelin's ERC-20 and SafeERC20. */
const REVERT_ABI = [
  ...GASLESS_EXECUTOR_ABI.filter((i) => i.type === 'error'),
  ...XCHAIN_ROUTER_ABI.filter((i) => i.type === 'error'),
  ...['InvalidSigner', 'InvalidNonce', 'InvalidSignature', 'InvalidSignatureLength', 'InvalidContractSignature', 'LengthMismatch'].map(
    (name) => ({ type: 'error' as const, name, inputs: [] }),
  ),
  { type: 'error', name: 'SignatureExpired', inputs: [{ name: 'signatureDeadline', type: 'uint256' }] },
  { type: 'error', name: 'InvalidAmount', inputs: [{ name: 'maxAmount', type: 'uint256' }] },
  { type: 'error', name: 'SafeERC20FailedOperation', inputs: [{ name: 'token', type: 'address' }] },
  {
    type: 'error',
    name: 'ERC20InsufficientBalance',
    inputs: [
      { name: 'sender', type: 'address' },
      { name: 'balance', type: 'uint256' },
      { name: 'needed', type: 'uint256' },
    ],
  },
  {
    type: 'error',
    name: 'ERC20InsufficientAllowance',
    inputs: [
      { name: 'spender', type: 'address' },
      { name: 'allowance', type: 'uint256' },
      { name: 'needed', type: 'uint256' },
    ],
  },
] as const;

/**
 * The same description from a call's revert data alone (a simulation's `returnData`): the custom
 * error, `Error(reason)` or `Panic(code)` decoded, else the unknown selector.
 */
export function revertReasonOfData(data: Hex): string {
  if (data.length < 10) return `unknown error ${data}`;
  try {
    const decoded = decodeErrorResult({ abi: REVERT_ABI, data });
    return `${decoded.errorName}(${(decoded.args ?? []).map(String).join(', ')})`;
  } catch {
    return `unknown error ${data.slice(0, 10)}`;
  }
}

/** A short, stable description of why a call reverted: the decoded custom error or reason string. */
export function revertReason(err: unknown): string {
  if (!(err instanceof BaseError)) return err instanceof Error ? err.message.split('\n')[0]! : String(err);
  const withData = err.walk((e) => typeof (e as { data?: unknown }).data === 'string') as { data?: Hex } | null;
  const data = withData?.data;
  if (data && data.length >= 10) {
    try {
      const decoded = decodeErrorResult({ abi: REVERT_ABI, data });
      const args = (decoded.args ?? []).map(String).join(', ');
      return `${decoded.errorName}(${args})`;
    } catch {
      // Error(string) and Panic are decoded by viem below; anything else shows its selector
      if (!data.startsWith('0x08c379a0') && !data.startsWith('0x4e487b71')) return `unknown error ${data.slice(0, 10)}`;
    }
  }
  const reverted = err.walk((e) => typeof (e as { reason?: unknown }).reason === 'string') as { reason?: string } | null;
  return reverted?.reason ?? err.shortMessage;
}
