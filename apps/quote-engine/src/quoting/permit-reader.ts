import { evmPublicClient } from '@xchain/chain-watch';
import { ERC20_PERMIT_ABI } from '@xchain/evm-gasless';
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  ExecutionRevertedError,
  type PublicClient,
  getAddress,
} from 'viem';
import type { ChainInfo } from '../registry/registry-cache';
import { token } from '@xchain/service-kit';

/** What an EIP-2612 permit of a token needs from the chain: its EIP-712 name and version, and the owner's nonce. */
export interface TokenPermit {
  name: string;
  version: string;
  nonce: bigint;
}

export interface TokenPermitReader {
  /**
   * The token's permit state for `owner`; undefined when no RPC is configured for the chain.
   * Rejects when the RPC fails or times out, or the token's domain is not one EIP-2612 wallets sign.
   */
  read(chain: ChainInfo, token: Address, owner: Address): Promise<TokenPermit | undefined>;
}
export const TOKEN_PERMIT_READER = token<TokenPermitReader>('TOKEN_PERMIT_READER');

/** EIP-5267 `fields` of a domain of exactly name, version, chainId and verifyingContract. */
const NAME_VERSION_CHAIN_CONTRACT = '0x0f';

/**
 * Reads permit state over JSON-RPC. A token's domain never changes, so it is read once per token
 * (a failed read is not cached: the next quote tries again); the nonce changes with every permit
 * the owner uses, so it is read per quote.
 */
export class RpcTokenPermitReader implements TokenPermitReader {
  private readonly domains = new Map<string, Promise<{ name: string; version: string }>>();

  constructor(private readonly clientOf: (chain: string) => PublicClient | undefined) {}

  async read(chain: ChainInfo, token: Address, owner: Address): Promise<TokenPermit | undefined> {
    const client = this.clientOf(chain.name);
    if (!client) return undefined;
    const [domain, nonce] = await Promise.all([
      this.domain(client, chain, token),
      client.readContract({ address: token, abi: ERC20_PERMIT_ABI, functionName: 'nonces', args: [owner] }),
    ]);
    return { ...domain, nonce };
  }

  private domain(client: PublicClient, chain: ChainInfo, token: Address): Promise<{ name: string; version: string }> {
    const key = `${chain.name}:${token.toLowerCase()}`;
    let domain = this.domains.get(key);
    if (!domain) {
      domain = readDomain(client, chain, token);
      this.domains.set(key, domain);
      domain.catch(() => this.domains.delete(key));
    }
    return domain;
  }
}

/** EIP-5267 first; tokens older than it expose `name()` and maybe `version()` (OpenZeppelin's default is "1"). */
async function readDomain(client: PublicClient, chain: ChainInfo, token: Address): Promise<{ name: string; version: string }> {
  const eip5267 = await client.readContract({ address: token, abi: ERC20_PERMIT_ABI, functionName: 'eip712Domain' }).catch(unlessMissing);
  if (eip5267) {
    const [fields, name, version, chainId, verifyingContract] = eip5267;
    // erc2612TypedData signs over exactly these four fields; a salt or another contract would not verify.
    if (fields !== NAME_VERSION_CHAIN_CONTRACT || chainId !== chain.chainId || getAddress(verifyingContract) !== getAddress(token)) {
      throw new Error(`the EIP-712 domain of ${token} on ${chain.name} is not (name, version, chainId, this token)`);
    }
    return { name, version };
  }
  const [name, version] = await Promise.all([
    client.readContract({ address: token, abi: ERC20_PERMIT_ABI, functionName: 'name' }),
    client.readContract({ address: token, abi: ERC20_PERMIT_ABI, functionName: 'version' }).catch(unlessMissing),
  ]);
  return { name, version: version ?? '1' };
}

/** A call the contract does not implement (reverts, or answers nothing) is undefined; an RPC failure stays one. */
function unlessMissing(err: unknown): undefined {
  // Nodes report an empty revert as code 3 or as -32000 "execution reverted"; viem maps both here.
  const missing =
    err instanceof BaseError &&
    err.walk(
      (e) =>
        e instanceof ContractFunctionRevertedError || e instanceof ContractFunctionZeroDataError || e instanceof ExecutionRevertedError,
    );
  if (missing) return undefined;
  throw err;
}

/** One viem client per configured chain; every call has a deadline and no retry, as a quote waits on it. */
export function rpcClients(urls: ReadonlyMap<string, string>, timeoutMs: number): (chain: string) => PublicClient | undefined {
  const clients = new Map<string, PublicClient>();
  for (const [chain, url] of urls) clients.set(chain, evmPublicClient(url, { timeoutMs }));
  return (chain) => clients.get(chain);
}
