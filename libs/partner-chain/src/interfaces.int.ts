import { compileContracts } from '@xchain/chain-tools';
import { ROOT } from '@xchain/stack';
import { type Abi, type AbiEvent, type AbiFunction, toEventSignature, toFunctionSignature } from 'viem';
import { PARTNER_FUNDING_ROUTER_ABI } from './funding';
import { REFERRAL_VOUCHER_ROUTER_ABI } from './voucher';

/**
 * One line per function and event: its signature plus what the signature leaves out (mutability
 * and outputs of a function, which event parameters are indexed).
 */
function describeAbi(abi: Abi): string[] {
  const lines: string[] = [];
  for (const item of abi) {
    if (item.type === 'function') {
      const fn = item as AbiFunction;
      lines.push(`function ${toFunctionSignature(fn)} ${fn.stateMutability} returns (${fn.outputs.map((o) => o.type).join(',')})`);
    } else if (item.type === 'event') {
      const ev = item as AbiEvent;
      lines.push(
        `event ${toEventSignature(ev)} indexed [${ev.inputs.map((i) => Boolean(i.indexed)).join(',')}] anonymous ${Boolean(ev.anonymous)}`,
      );
    } else {
      lines.push(item.type);
    }
  }
  return lines.sort();
}

describe('the TS ABIs match the Solidity interfaces', () => {
  let compiled: ReturnType<typeof compileContracts>;

  beforeAll(() => {
    compiled = compileContracts(['contracts/src/IPartnerFundingRouter.sol', 'contracts/src/IReferralVoucherRouter.sol'], ROOT);
  }, 60_000);

  it.each([
    ['IPartnerFundingRouter', PARTNER_FUNDING_ROUTER_ABI as Abi, 2],
    ['IReferralVoucherRouter', REFERRAL_VOUCHER_ROUTER_ABI as Abi, 3],
  ])('%s: every function and event on both sides, same signature', (name, tsAbi, items) => {
    const contract = compiled[name];
    expect(contract).toBeDefined();
    // An interface compiles to an ABI only.
    expect(contract!.bytecode).toBe('0x');
    const fromSolidity = describeAbi(contract!.abi);
    const fromTs = describeAbi(tsAbi);
    expect(fromTs).toHaveLength(items);
    expect(fromSolidity).toEqual(fromTs);
  });
});
