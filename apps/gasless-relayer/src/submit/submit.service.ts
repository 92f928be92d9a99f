import { Inject, Injectable } from '@nestjs/common';
import {
  Code,
  FetchQuoteRpc,
  type GaslessOrderResult,
  LedgerHoldRpc,
  RpcError,
  type StoredQuote,
  type SubmitGaslessOrderRequest,
} from '@xchain/contracts';
import { ERC2612_PERMIT_VALUE, executeCalldata, erc2612TypedData, permit2TypedData, tokenOf } from '@xchain/evm-gasless';
import { RpcClient, isChainRpcUnavailable, onChain } from '@xchain/messaging';
import { type Order, orderFromWire } from '@xchain/order-codec';
import { Clock, LOGGER, SystemClock } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { type Address, type Hex, getAddress, isAddress, isAddressEqual, isHex, recoverTypedDataAddress, size } from 'viem';
import { type RelayChain, RelayChains } from '../chain/relay-chains';
import { revertReason } from '../chain/revert-reason';
import { balanceAndAllowance, permit2NonceUsed, permitDomain, permitNonce } from '../chain/token-reads';
import { GaslessOrderRepository, viewOf } from '../store/gasless-order.repository';
import { StatusEvents } from '../relay/status-events';
import { Lanes } from '../relay/lanes';
import { SVM_RELAY, type SvmRelay } from '../svm/svm-relay';
import { SVM_SUBMIT, type SvmQuote, type SvmSubmit } from '../svm/svm-submit';
import { refuse } from '../svm/submit-errors';

export { RELAYER_CALLER } from '../relay/relayer-caller';
import { RELAYER_CALLER } from '../relay/relayer-caller';

/** The registry's name of the Solana chain: the `chain` of its orders and their status events. */
const SOLANA = 'solana';

interface EvmBody {
  owner: Address;
  nonce: bigint;
  deadline: bigint;
  signature: Hex;
  permitSignature?: Hex;
}

/**
 * SubmitGaslessOrder. Every check runs before any gas is spent, in the order the API documents;
 * then the order is stored (the database guards "one order per quote") and queued. Submitting a
 * quote again, with any body, answers the one order's current state.
 */
@Injectable()
export class SubmitService {
  /** Solana (D6): absent when SOLANA_RPC_URL or SOLANA_FEE_PAYER_KEY is not set. */
  private readonly svm: { submit: SvmSubmit; relay: Pick<SvmRelay, 'wake'> } | undefined;

  constructor(
    @Inject(GaslessOrderRepository) private readonly orders: GaslessOrderRepository,
    @Inject(RpcClient) private readonly rpc: RpcClient,
    @Inject(RelayChains) private readonly chains: RelayChains,
    @Inject(Lanes) private readonly lanes: Lanes,
    @Inject(StatusEvents) private readonly events: StatusEvents,
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(Clock) private readonly clock: Clock = new SystemClock(),
    @Inject(SVM_SUBMIT) svmSubmit?: SvmSubmit | null,
    @Inject(SVM_RELAY) svmRelay?: Pick<SvmRelay, 'wake'> | null,
  ) {
    this.svm = svmSubmit && svmRelay ? { submit: svmSubmit, relay: svmRelay } : undefined;
  }

  /**
   * A Solana order: every check of svm.tx_base64 and the co-signature happen before the row is
   * written; the row holds the co-signed transaction, so the relay sends exactly what was checked.
   */
  private async submitSvm(
    quoteHash: string,
    stored: StoredQuote,
    quote: SvmQuote,
    order: Order,
    txBase64: string,
  ): Promise<GaslessOrderResult> {
    if (!this.svm) throw refuse.chainNotServed(SOLANA);
    const tx = await this.svm.submit.accept(quote, txBase64);
    const sponsor = order.sponsorFees ? sponsorOf(stored) : undefined;
    const inserted = await this.orders.insertSvm({
      quoteHash,
      chain: SOLANA,
      owner: tx.owner,
      feePayer: tx.feePayer,
      txBase64: tx.txBase64,
      signature: tx.signature,
      ...(sponsor ? { sponsor: { partnerId: sponsor.partnerId, holdUsdMicros: sponsor.usdMicros } } : {}),
    });
    if (!inserted) {
      // Another submission of this quote won (the primary key decides): its state is the answer.
      const winner = await this.orders.find(quoteHash);
      if (winner) return resultOf(viewOf(winner));
      throw refuse.transaction('is already the transaction of another order');
    }
    if (sponsor) await this.hold(quoteHash, sponsor);
    this.events.publish(SOLANA, { quote_hash: quoteHash, status: 'queued', tx_hashes: [] });
    this.svm.relay.wake(quoteHash);
    return { quote_hash: quoteHash, status: 'queued' };
  }

  async submit(req: SubmitGaslessOrderRequest): Promise<GaslessOrderResult> {
    // Both bodies at once leaves which signature binds the user ambiguous: refuse rather than pick one.
    if (req.evm && req.svm) throw refuse.field('svm', 'must be absent when evm is sent: send exactly one of evm and svm');
    const quoteHash = req.quote_hash.toLowerCase();
    const existing = await this.orders.find(quoteHash);
    if (existing) return resultOf(viewOf(existing));
    try {
      return await this.submitNew(quoteHash, req);
    } catch (err) {
      // A concurrent submission of the same quote may have won meanwhile, and its transaction may
      // already have moved the chain (nonce used, funds gone, simulation reverted): a refusal is
      // then the winner's doing, and the answer is the one order's state, as for any resubmission.
      if (err instanceof RpcError) {
        const winner = await this.orders.find(quoteHash);
        if (winner) return resultOf(viewOf(winner));
      }
      throw err;
    }
  }

  private async submitNew(quoteHash: string, req: SubmitGaslessOrderRequest): Promise<GaslessOrderResult> {
    const stored = await this.rpc.call(FetchQuoteRpc, { quote_hash: quoteHash });
    const quote = 'cross_chain' in stored.quote ? stored.quote.cross_chain : undefined;
    if (!quote?.gasless) throw refuse.notGasless();
    const { order } = orderFromWire(quote.order);
    if (!quote.gasless_executor) {
      if (!req.svm) throw refuse.wrongVm('svm', 'Solana');
      return this.submitSvm(quoteHash, stored, quote, order, req.svm.tx_base64);
    }
    if (!req.evm) throw refuse.wrongVm('evm', 'EVM');
    const body = parseEvmBody(req.evm);
    const executor = getAddress(quote.gasless_executor);
    const chain = await this.chains.byChainId(order.srcChainId);
    if (!chain) throw refuse.chainNotServed(String(order.srcChainId));

    await this.checkSignature(quote, order, executor, body);
    if (BigInt(this.clock.nowSecs()) > body.deadline) throw refuse.deadlinePassed(body.deadline);
    const token = tokenOf(order);
    // Every chain read names its chain when the RPC does not answer: the RPC server answers 503 CHAIN_RPC_UNAVAILABLE.
    const [used, funds] = await onChain(
      chain.name,
      Promise.all([permit2NonceUsed(chain.client, body.owner, body.nonce), balanceAndAllowance(chain.client, token, body.owner)]),
    );
    if (used) throw refuse.nonceUsed(body.nonce);
    if (funds.balance < order.amountIn) throw refuse.balance(funds.balance, order.amountIn);
    let permitSignature: Hex = '0x';
    if (funds.allowance < order.amountIn) {
      if (!body.permitSignature) throw refuse.allowance(funds.allowance, order.amountIn, '0x000000000022D473030F116dDEE9F6B43aC78BA3');
      await onChain(chain.name, this.checkPermitSignature(chain, token, order, body));
      permitSignature = body.permitSignature;
    }
    const calldata = executeCalldata({
      order,
      owner: body.owner,
      nonce: body.nonce,
      deadline: body.deadline,
      signature: body.signature,
      permitSignature,
    });
    const wallet = this.lanes.pickWallet(chain.name, body.owner);
    try {
      await onChain(chain.name, chain.client.call({ account: wallet, to: executor, data: calldata }));
    } catch (err) {
      // An RPC that did not answer says nothing about the call: 503, not SIMULATION_REVERTED.
      if (isChainRpcUnavailable(err)) throw err;
      throw refuse.simulation(revertReason(err));
    }

    const sponsor = order.sponsorFees ? sponsorOf(stored) : undefined;
    const inserted = await this.orders.insert({
      quoteHash,
      chain: chain.name,
      owner: body.owner,
      permit2Nonce: body.nonce,
      deadline: body.deadline,
      executor,
      calldata,
      wallet,
      ...(sponsor ? { sponsor: { partnerId: sponsor.partnerId, holdUsdMicros: sponsor.usdMicros } } : {}),
    });
    if (!inserted) {
      const winner = await this.orders.find(quoteHash);
      if (winner) return resultOf(viewOf(winner));
    }
    if (sponsor) await this.hold(quoteHash, sponsor);
    this.events.publish(chain.name, { quote_hash: quoteHash, status: 'queued', tx_hashes: [] });
    await this.lanes.enqueue(chain.name, wallet, quoteHash).catch((err: unknown) => {
      // The order is stored: the sweeper enqueues it once Redis answers again. Nothing is lost.
      this.log.warn(
        { quote_hash: quoteHash, err: err instanceof Error ? err.message : String(err) },
        'enqueue failed; the sweeper will retry',
      );
    });
    return { quote_hash: quoteHash, status: 'queued' };
  }

  /** The signature must be the owner's over exactly the typed data the quote asked for, rebuilt here. */
  private async checkSignature(quote: { permit2?: unknown }, order: Order, executor: Address, body: EvmBody): Promise<void> {
    const quoted = quoteNonce(quote);
    if (quoted === undefined) throw refuse.notGasless();
    if (body.nonce !== quoted) throw refuse.signature(`permit2_nonce must be the quote's ${quoted}`);
    if (body.deadline !== order.expiresAt) throw refuse.signature(`deadline must be the quote's ${order.expiresAt}`);
    const typed = permit2TypedData({ order, spender: executor, nonce: quoted, deadline: order.expiresAt });
    let signer: Address;
    try {
      signer = await recoverTypedDataAddress({ ...typed, signature: body.signature } as Parameters<typeof recoverTypedDataAddress>[0]);
    } catch {
      throw refuse.signature('is not a valid signature');
    }
    if (!isAddressEqual(signer, body.owner)) throw refuse.signature("is not the owner's signature over this quote's permit2 typed data");
  }

  private async checkPermitSignature(chain: RelayChain, token: Address, order: Order, body: EvmBody): Promise<void> {
    const [domain, nonce, chainId] = await Promise.all([
      permitDomain(chain.client, token),
      permitNonce(chain.client, token, body.owner),
      chain.chainId(),
    ]);
    const typed = erc2612TypedData({ chainId, token, ...domain, owner: body.owner, nonce, deadline: body.deadline });
    let signer: Address | undefined;
    try {
      signer = await recoverTypedDataAddress({ ...typed, signature: body.permitSignature! } as Parameters<
        typeof recoverTypedDataAddress
      >[0]);
    } catch {
      signer = undefined;
    }
    if (!signer || !isAddressEqual(signer, body.owner))
      throw refuse.permitSignature(`is not the owner's EIP-2612 permit of ${ERC2612_PERMIT_VALUE} to Permit2 (token nonce ${nonce})`);
  }

  private async hold(quoteHash: string, sponsor: { partnerId: string; usdMicros: bigint }): Promise<void> {
    try {
      await this.rpc.call(
        LedgerHoldRpc,
        { partner_id: sponsor.partnerId, quote_hash: quoteHash, amount_usd_micros: sponsor.usdMicros.toString() },
        { caller: RELAYER_CALLER },
      );
    } catch (err) {
      await this.orders.dropUnheld(quoteHash);
      if (err instanceof RpcError && err.status.code === Code.FAILED_PRECONDITION) throw refuse.sponsorBalance();
      throw err;
    }
    await this.orders.setHold(quoteHash, 'holding', 'held');
  }
}

function resultOf(v: GaslessOrderResult): GaslessOrderResult {
  return {
    quote_hash: v.quote_hash,
    status: v.status,
    ...(v.tx_hash ? { tx_hash: v.tx_hash } : {}),
    ...(v.error ? { error: v.error } : {}),
  };
}

function quoteNonce(quote: { permit2?: unknown }): bigint | undefined {
  const nonce = (quote.permit2 as { message?: { nonce?: unknown } } | undefined)?.message?.nonce;
  return typeof nonce === 'string' && /^[0-9]+$/.test(nonce) ? BigInt(nonce) : undefined;
}

/** The sponsoring partner and the relay gas it holds: the quote's `sponsor_gas` in USD micros. */
function sponsorOf(stored: StoredQuote): { partnerId: string; usdMicros: bigint } {
  const quote = 'cross_chain' in stored.quote ? stored.quote.cross_chain : stored.quote.same_chain_swap;
  const usdMicros = quote.fee_breakdown.components
    .filter((c) => c.name === 'sponsor_gas')
    .reduce((sum, c) => sum + BigInt(c.usd_micros), 0n);
  if (!stored.partner_id) throw refuse.sponsorBalance();
  return { partnerId: stored.partner_id, usdMicros };
}

const UINT = /^(0|[1-9][0-9]{0,77})$/;

/** EIP-55 binds only mixed case: all-lower or all-upper hex carries no checksum, so it stands. */
function checksumHolds(address: string): boolean {
  const hex = address.slice(2);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) return true;
  return getAddress(address) === address;
}

function parseEvmBody(evm: NonNullable<SubmitGaslessOrderRequest['evm']>): EvmBody {
  if (!isAddress(evm.owner, { strict: false })) throw refuse.field('evm.owner', 'is not an EVM address', 'INVALID_ADDRESS');
  if (!checksumHolds(evm.owner))
    throw refuse.field('evm.owner', `has a wrong EIP-55 checksum (expected ${getAddress(evm.owner)})`, 'INVALID_ADDRESS');
  if (!UINT.test(evm.permit2_nonce)) throw refuse.field('evm.permit2_nonce', 'must be a decimal uint256');
  if (!UINT.test(evm.deadline)) throw refuse.field('evm.deadline', 'must be decimal unix seconds');
  if (!isHex(evm.signature) || size(evm.signature) !== 65) throw refuse.signature('must be 65 bytes of 0x hex');
  const permit = evm.permit_signature;
  if (permit !== undefined && permit !== '' && (!isHex(permit) || size(permit) !== 65))
    throw refuse.permitSignature('must be 65 bytes of 0x hex');
  return {
    owner: getAddress(evm.owner),
    nonce: BigInt(evm.permit2_nonce),
    deadline: BigInt(evm.deadline),
    signature: evm.signature,
    ...(permit ? { permitSignature: permit as Hex } : {}),
  };
}
