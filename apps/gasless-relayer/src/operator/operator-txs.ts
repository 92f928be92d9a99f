import { Code, errorInfo, RpcError, type OperatorTxView, type SendOperatorTxRequest } from '@xchain/contracts';
import { ERC20_PERMIT_ABI } from '@xchain/evm-gasless';
import { isChainRpcUnavailable, onChain } from '@xchain/messaging';
import { Inject, Injectable } from '@nestjs/common';
import { LOGGER } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { getAddress, isAddress, zeroAddress } from 'viem';
import { type RelayChain, RelayChains } from '../chain/relay-chains';
import { Lanes } from '../relay/lanes';
import { OperatorTxTables } from '../store/operator-tx.repository';
import { noWallet } from './svm-operator-tx';
import { SOLANA, SvmOperatorTxs } from './svm-operator-txs';

/**
 * Operator transactions (D15): settlement in the quote-engine decides each fill, cancel, refund and
 * claim; this sends it from the chain's operator wallet through that wallet's lane, with the same
 * nonce management, replacement, confirmation and crash safety as gasless deposits. The database
 * row, unique per (kind, quote hash), is what makes a repeated request a lookup, never a second
 * transaction. Solana's fills, refunds, returns and claims are built and signed here (SvmOperatorTxs).
 */
@Injectable()
export class OperatorTxs {
  constructor(
    @Inject(RelayChains) private readonly chains: RelayChains,
    @Inject(OperatorTxTables) private readonly tables: OperatorTxTables,
    @Inject(Lanes) private readonly lanes: Lanes,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(SvmOperatorTxs) private readonly svm?: SvmOperatorTxs,
  ) {}

  async send(req: SendOperatorTxRequest): Promise<OperatorTxView> {
    const call = req.call;
    if (call.vm === 'svm') {
      if (req.chain !== SOLANA)
        throw RpcError.invalidArgument([{ field: 'chain', description: `a Solana call on ${req.chain}, which is not ${SOLANA}` }]);
      if (!this.svm) throw noWallet('Solana is not settled by this relayer');
      return this.svm.send({ kind: req.kind, quote_hash: req.quote_hash, call });
    }
    if (req.kind === 'return')
      throw RpcError.invalidArgument([{ field: 'kind', description: 'a return of a stray deposit exists on Solana only' }]);
    const chain = this.operatorChain(req.chain);
    const wallet = chain.operator!.address;
    const table = this.tables.of(req.kind);
    const inserted = await table.insert({
      key: req.quote_hash,
      chain: chain.name,
      wallet,
      payload: { vm: 'evm', target: getAddress(call.to), calldata: call.data.toLowerCase(), value: BigInt(call.value) },
    });
    const view = await table.find(req.quote_hash);
    if (!view) throw RpcError.unavailable('the operator transaction was not stored; try again', 'OPERATOR_TX_NOT_STORED');
    if (inserted) {
      this.log.info({ kind: req.kind, quote_hash: req.quote_hash, chain: chain.name, wallet }, 'operator transaction queued');
      // A lost enqueue costs a sweep interval: the row is queued and the sweeper enqueues it again.
      await this.lanes.enqueue(chain.name, wallet, table.laneId(req.quote_hash)).catch(() => undefined);
    }
    return view;
  }

  /** The operator wallet's balance of `token` (zero address: native; on Solana, the System program id: SOL) on a chain, read now. */
  async balance(chainName: string, token: string): Promise<{ wallet: string; balance: bigint }> {
    if (chainName === SOLANA) {
      if (!this.svm) throw noWallet('Solana is not settled by this relayer');
      return this.svm.balance(token);
    }
    if (!isAddress(token, { strict: false })) throw RpcError.invalidArgument([{ field: 'token', description: 'is not an EVM address' }]);
    const chain = this.operatorChain(chainName);
    const wallet = chain.operator!.address;
    try {
      const read =
        getAddress(token) === zeroAddress
          ? chain.client.getBalance({ address: wallet })
          : chain.client.readContract({ address: getAddress(token), abi: ERC20_PERMIT_ABI, functionName: 'balanceOf', args: [wallet] });
      return { wallet, balance: await onChain(chainName, read) };
    } catch (err) {
      // The RPC not answering is answered (and logged once per outage) by the RPC server; a read that failed otherwise stays a 503 of its own.
      if (isChainRpcUnavailable(err)) throw err;
      throw RpcError.unavailable(
        `${chainName} did not answer the balance read: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
        'CHAIN_RPC_UNAVAILABLE',
        5,
        { chain: chainName },
      );
    }
  }

  private operatorChain(name: string): RelayChain {
    const chain = this.chains.byName(name);
    if (!chain) throw RpcError.unavailable(`the relayer has no RPC for ${name}`, 'CHAIN_NOT_RELAYED', 60, { chain: name });
    if (!chain.operator) {
      throw new RpcError(Code.FAILED_PRECONDITION, `no operator wallet for ${name} (FILLER_PRIVATE_KEYS)`, [
        errorInfo('NO_OPERATOR_WALLET', { chain: name }),
      ]);
    }
    return chain;
  }
}
