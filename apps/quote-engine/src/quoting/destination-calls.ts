import { Code, type DestinationCallInput, type DestinationCallView, OperatorBalanceRpc, RpcError, errorInfo } from '@xchain/contracts';
import { type DestinationCall, XCHAIN_ROUTER_ABI, destinationCallRevertReason, fillWithCallTx } from '@xchain/evm-gasless';
import { type RpcClient, chainRpcFailure } from '@xchain/messaging';
import type { Order } from '@xchain/order-codec';
import { token, withDeadline } from '@xchain/service-kit';
import { type Address, BaseError, type Hex, type PublicClient, decodeErrorResult, decodeFunctionResult, getAddress, isAddress } from 'viem';
import type { ChainInfo } from '../registry/registry-cache';
import { normaliseAddress } from '../registry/addresses';
import { invalid } from './quote-errors';

export interface DestinationCallConfig {
  /** The highest gas_limit a call may ask for (DESTINATION_CALL_MAX_GAS). */
  maxGas: number;
  /** Deadline of the reads and the simulation on the destination, and of the operator wallet lookup. */
  timeoutMs: number;
}

export const DESTINATION_CALLS = token<DestinationCalls>('DESTINATION_CALLS');

/** A request's call, checked against the chains: what the order commits to, and its gas in destination native units. */
export interface PreparedCall {
  call: DestinationCall;
  gasNative: bigint;
}

const ROUTER_ERRORS = XCHAIN_ROUTER_ABI;

/**
 * Destination calls at quote time (issue 39 §4): the request's call is checked (EVM destination,
 * cross-chain, a contract target, gas within the operator's limit, `recipient` as the fallback), its
 * gas priced at the destination's current gas price, and the order's `fillWithCall` simulated from
 * the operator wallet, so a call that would revert is refused before anyone deposits.
 */
export class DestinationCalls {
  private readonly wallets = new Map<string, Address>();

  constructor(
    private readonly clientOf: (chain: string) => PublicClient | undefined,
    private readonly rpc: Pick<RpcClient, 'call'>,
    private readonly config: DestinationCallConfig,
  ) {}

  /** PreviewQuote: the gas of a call to `target` with `gas_limit`, priced as GetQuote prices it, nothing simulated. */
  async gasOnly(input: Pick<DestinationCallInput, 'target' | 'gas_limit'>, src: ChainInfo, dst: ChainInfo): Promise<bigint> {
    this.checkRoute(input, src, dst);
    if (!isAddress(input.target, { strict: false }))
      throw invalid('destination_call.target', 'is not an EVM address', 'INVALID_DESTINATION_CALL');
    const gasPrice = await this.onChain(dst, this.client(dst).getGasPrice());
    return BigInt(input.gas_limit) * gasPrice;
  }

  /** Checks the call and prices its gas (gas_limit × the destination's gas price, in its native base units). */
  async prepare(input: DestinationCallInput, src: ChainInfo, dst: ChainInfo, recipient: string): Promise<PreparedCall> {
    this.checkRoute(input, src, dst);
    const fallback = normaliseAddress('evm', recipient);
    if (input.fallback_recipient !== undefined && normaliseAddress('evm', input.fallback_recipient) !== fallback)
      throw invalid(
        'destination_call.fallback_recipient',
        'must equal recipient, which receives the tokens when the call reverts',
        'INVALID_DESTINATION_CALL',
      );
    if (!isAddress(input.target, { strict: false }))
      throw invalid('destination_call.target', 'is not an EVM address', 'INVALID_DESTINATION_CALL');
    const target = getAddress(input.target);
    if (fallback && target === getAddress(fallback))
      throw invalid('destination_call.target', 'must differ from recipient (the fallback)', 'INVALID_DESTINATION_CALL');
    if (isAddress(dst.depositTarget, { strict: false }) && target === getAddress(dst.depositTarget))
      throw invalid('destination_call.target', 'must not be the router', 'INVALID_DESTINATION_CALL');
    const client = this.client(dst);
    const [code, gasPrice] = await this.onChain(dst, Promise.all([client.getCode({ address: target }), client.getGasPrice()]));
    if (!code || code === '0x') throw invalid('destination_call.target', `has no contract code on ${dst.name}`, 'DESTINATION_CALL_NO_CODE');
    const call: DestinationCall = { target, gasLimit: BigInt(input.gas_limit), data: input.calldata.toLowerCase() as Hex };
    return { call, gasNative: call.gasLimit * gasPrice };
  }

  /** What every destination call needs of the route and its gas. */
  private checkRoute(input: Pick<DestinationCallInput, 'gas_limit'>, src: ChainInfo, dst: ChainInfo): void {
    if (dst.vm !== 'evm')
      throw invalid('destination_call', `is offered on EVM destinations only; ${dst.name} is not one`, 'DESTINATION_CALL_UNSUPPORTED');
    if (src.name === dst.name) throw invalid('destination_call', 'is offered on cross-chain quotes only', 'DESTINATION_CALL_UNSUPPORTED');
    if (input.gas_limit < 10_000 || input.gas_limit > this.config.maxGas)
      throw invalid('destination_call.gas_limit', `must be between 10000 and ${this.config.maxGas}`, 'INVALID_DESTINATION_CALL');
  }

  /**
   * Runs the order's `fillWithCall` as an `eth_call` from the operator wallet on the destination
   * (its native balance raised to cover the value): refuses the quote when the call itself reverts
   * (DESTINATION_CALL_REVERTS, with the decoded reason); when the fill around it cannot be tried
   * (the wallet's inventory or approval, the RPC), answers UNAVAILABLE rather than guess.
   */
  async simulate(dst: ChainInfo, order: Order, call: DestinationCall, callSalt: Hex, dstToken: string): Promise<void> {
    const client = this.client(dst);
    const wallet = await this.wallet(dst, dstToken);
    const tx = fillWithCallTx(order, order.amountOut, call, callSalt, getAddress(dst.depositTarget));
    let data: Hex | undefined;
    try {
      data = (
        await this.onChain(
          dst,
          client.call({
            account: wallet,
            to: tx.to,
            data: tx.data,
            value: tx.value,
            stateOverride: [{ address: wallet, balance: tx.value + 10n ** 18n }],
          }),
          true,
        )
      ).data;
    } catch (err) {
      if (err instanceof RpcError) throw err;
      throw RpcError.unavailable(
        `the fill with the destination call could not be simulated on ${dst.name}: ${routerError(err)}`,
        'DESTINATION_CALL_UNCHECKED',
        10,
        { chain: dst.name },
      );
    }
    const [executed, reason] = decodeFunctionResult({ abi: XCHAIN_ROUTER_ABI, functionName: 'fillWithCall', data: data ?? '0x' });
    if (!executed) {
      const why = destinationCallRevertReason(reason);
      throw new RpcError(Code.FAILED_PRECONDITION, `destination_call: the call reverts on ${dst.name}: ${why}`, [
        errorInfo('DESTINATION_CALL_REVERTS', { chain: dst.name, reason: why, revert_data: reason.slice(0, 2050) }),
      ]);
    }
  }

  /** What the quote shows of the call, so a client can check the salt and the hash. */
  static view(call: DestinationCall, callSalt: Hex): DestinationCallView {
    return { target: call.target, calldata: call.data, gas_limit: call.gasLimit.toString(), call_salt: callSalt };
  }

  private client(dst: ChainInfo): PublicClient {
    const client = this.clientOf(dst.name);
    if (!client)
      throw RpcError.unavailable(`destination calls on ${dst.name} need its RPC (EVM_RPC_URLS)`, 'DESTINATION_CALL_UNCHECKED', 60, {
        chain: dst.name,
      });
    return client;
  }

  /** The operator wallet that fills on the chain (the relayer's), looked up once per chain. */
  private async wallet(dst: ChainInfo, dstToken: string): Promise<Address> {
    const known = this.wallets.get(dst.name);
    if (known) return known;
    const answer = await this.rpc
      .call(OperatorBalanceRpc, { chain: dst.name, token: dstToken }, { timeoutMs: this.config.timeoutMs })
      .catch((err: unknown) => {
        // No operator wallet, or the relayer not answering: the call cannot be tried, which is not the caller's fault.
        throw RpcError.unavailable(
          `the operator wallet on ${dst.name} could not be looked up to simulate the call: ${err instanceof Error ? err.message : String(err)}`,
          'DESTINATION_CALL_UNCHECKED',
          10,
          { chain: dst.name },
        );
      });
    const wallet = getAddress(answer.wallet);
    this.wallets.set(dst.name, wallet);
    return wallet;
  }

  /** A read on the destination with the deadline; an RPC that does not answer is UNAVAILABLE, never a hang. */
  private async onChain<T>(dst: ChainInfo, read: Promise<T>, passReverts = false): Promise<T> {
    try {
      return await withDeadline(read, this.config.timeoutMs, (): never => {
        throw RpcError.unavailable(`${dst.name} did not answer within ${this.config.timeoutMs} ms`, 'CHAIN_RPC_UNAVAILABLE', 5, {
          chain: dst.name,
        });
      });
    } catch (err) {
      if (err instanceof RpcError) throw err;
      const failure = chainRpcFailure(err);
      if (failure || !passReverts)
        throw RpcError.unavailable(`${dst.name} did not answer: ${failure?.message ?? routerError(err)}`, 'CHAIN_RPC_UNAVAILABLE', 5, {
          chain: dst.name,
        });
      throw err;
    }
  }
}

/** The router's (or the token's) error a reverted simulation ended in, by name when it is the router's. */
function routerError(err: unknown): string {
  const raw = err instanceof BaseError ? err.walk((x) => typeof (x as { data?: unknown }).data === 'string') : null;
  const data = (raw as { data?: Hex } | null)?.data;
  if (data) {
    try {
      return decodeErrorResult({ abi: ROUTER_ERRORS, data }).errorName;
    } catch {
      return `revert ${data.slice(0, 10)}`;
    }
  }
  return err instanceof BaseError ? err.shortMessage : err instanceof Error ? err.message : String(err);
}
