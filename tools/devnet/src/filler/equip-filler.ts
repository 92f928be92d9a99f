import { approveCalldata } from '@xchain/evm-gasless';
import { parseRpcUrls } from '@xchain/chain-watch';
import { type Address, type Hex, createPublicClient, createWalletClient, http, maxUint256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { ChainPlan } from '../devnet-plan';
import { fund } from '../fund';

/**
 * Readies the filler's wallet on every local chain: native gas and 1,000,000 whole units of every
 * registry token (what `devnet fund` gives), and an unlimited approval of the chain's router for
 * each token, since `fill` pulls an ERC-20 from the filler. Local chains only: it mints.
 */
export async function equipFiller(
  rpcUrls: string,
  plans: readonly ChainPlan[],
  fillerKey: Hex,
  opts: { registryFile?: string; partnersFile?: string } = {},
): Promise<Address> {
  const account = privateKeyToAccount(fillerKey);
  await fund(rpcUrls, account.address, opts);
  const urls = parseRpcUrls(rpcUrls);
  await Promise.all(
    plans.map(async (plan) => {
      const url = urls.get(plan.name);
      if (!url) throw new Error(`no RPC URL for ${plan.name}`);
      const transport = http(url);
      const client = createPublicClient({ transport, pollingInterval: 200 });
      const wallet = createWalletClient({ account, transport });
      // Back to back with counted nonces: on a chain that mines on a clock they land in one block.
      let nonce = await client.getTransactionCount({ address: account.address, blockTag: 'pending' });
      const sent: Hex[] = [];
      for (const token of plan.tokens) {
        sent.push(
          await wallet.sendTransaction({
            to: token.address,
            data: approveCalldata(plan.depositTarget, maxUint256),
            chain: null,
            nonce: nonce++,
          }),
        );
      }
      for (const hash of sent) {
        const receipt = await client.waitForTransactionReceipt({ hash, timeout: 30_000 });
        if (receipt.status !== 'success') throw new Error(`the filler's approval on ${plan.name} failed (${hash})`);
      }
    }),
  );
  return account.address;
}
