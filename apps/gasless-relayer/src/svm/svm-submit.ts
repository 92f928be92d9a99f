import { Inject, Injectable } from '@nestjs/common';
import type { Keypair } from '@solana/web3.js';
import { SolanaRpcRefused } from '@xchain/chain-watch';
import { SOL, depositInstructions, svmOrderTerms } from '@xchain/svm-orders';
import type { OrderWire } from '@xchain/contracts';
import { ChainRpcUnavailableError } from '@xchain/messaging';
import { token } from '@xchain/service-kit';
import { refuse } from './submit-errors';
import { SolanaRpc } from './solana-rpc';
import { checkFeePayerUnused, checkInstructions, checkSignatures, coSign, decodeTransaction, feePayerOf } from './svm-transaction';

/** The key that pays the fees of gasless Solana orders and co-signs them (SOLANA_FEE_PAYER_KEY). */
export const SOLANA_FEE_PAYER = token<Keypair>('SOLANA_FEE_PAYER');

/** Gasless Solana submits where the relayer has an RPC and a fee payer, else null. */
export const SVM_SUBMIT = token<SvmSubmit | null>('SVM_SUBMIT');

/** The parts of a stored gasless Solana quote the checks read. */
export interface SvmQuote {
  order: OrderWire;
  deposit_target: string;
  fee_payer?: string;
}

/** A transaction that passed every check, co-signed, ready to be stored and sent. */
export interface AcceptedSvmTx {
  owner: string;
  feePayer: string;
  /** The co-signed transaction (base64): the user's bytes with the fee payer's signature in slot 0. */
  txBase64: string;
  /** Its id: the fee payer's signature (base58). */
  signature: string;
}

/**
 * SubmitGaslessOrder's checks of svm.tx_base64 (D6), in the order the API documents, all before
 * anything is sent: the fee payer is the quote's and ours; it appears in no instruction; every
 * other signer signed the message; the instructions are exactly this quote's deposit; the blockhash
 * is still valid; then, co-signed, the transaction simulates with every signature verified.
 */
@Injectable()
export class SvmSubmit {
  /** Mint decimals never change: read once per mint. */
  private readonly decimals = new Map<string, number>();

  constructor(
    @Inject(SolanaRpc) private readonly rpc: SolanaRpc,
    @Inject(SOLANA_FEE_PAYER) private readonly feePayer: Keypair,
  ) {}

  async accept(quote: SvmQuote, txBase64: string): Promise<AcceptedSvmTx> {
    const ours = this.feePayer.publicKey.toBase58();
    if (quote.fee_payer !== ours) throw refuse.feePayerNotServed(quote.fee_payer ?? 'none');
    const tx = decodeTransaction(txBase64);
    const feePayer = feePayerOf(tx).toBase58();
    if (feePayer !== ours) throw refuse.wrongFeePayer(feePayer, ours);
    checkFeePayerUnused(tx);
    checkSignatures(tx);

    const wire = quote.order;
    const terms = svmOrderTerms(wire);
    const mintDecimals = terms.srcToken === SOL ? undefined : await this.rpcStep(() => this.mintDecimals(terms.srcToken));
    checkInstructions(
      tx,
      depositInstructions({
        order: wire,
        owner: terms.refundAddress,
        vault: quote.deposit_target,
        ...(mintDecimals === undefined ? {} : { mintDecimals }),
      }),
    );

    if (!(await this.rpcStep(() => this.rpc.isBlockhashValid(tx.message.recentBlockhash))))
      throw refuse.blockhashExpired(tx.message.recentBlockhash);
    const signed = coSign(tx, this.feePayer);
    const simulation = await this.rpcStep(() =>
      this.rpc.simulate(signed.base64).catch((err: unknown) => {
        // The node refusing the transaction itself (e.g. a signature it does not accept) is the transaction's failure.
        if (err instanceof SolanaRpcRefused) throw refuse.simulation(err.message);
        throw err;
      }),
    );
    if (simulation.err !== null) throw refuse.simulation(simulationReason(simulation.err, simulation.logs));
    return { owner: terms.refundAddress, feePayer, txBase64: signed.base64, signature: signed.signature };
  }

  private async mintDecimals(mint: string): Promise<number> {
    const known = this.decimals.get(mint);
    if (known !== undefined) return known;
    const read = await this.rpc.mintDecimals(mint);
    if (read === undefined) throw refuse.simulation(`the source mint ${mint} is not an SPL Token mint on this cluster`);
    this.decimals.set(mint, read);
    return read;
  }

  /** An RPC that does not answer (or refuses a read) is the relayer's problem, never the user's: 503 CHAIN_RPC_UNAVAILABLE, try again. */
  private async rpcStep<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (err) {
      if (err instanceof SolanaRpcRefused) throw new ChainRpcUnavailableError(err.message, this.rpc.url, { chain: 'solana', cause: err });
      throw err;
    }
  }
}

/** The transaction error as the node reports it, with the log line that says which program failed and why. */
export function simulationReason(err: unknown, logs: readonly string[]): string {
  const failed = [...logs].reverse().find((l) => / failed: /.test(l) || /^Program log: Error/.test(l));
  const text = typeof err === 'string' ? err : JSON.stringify(err);
  return failed ? `${text}: ${failed}` : text;
}
