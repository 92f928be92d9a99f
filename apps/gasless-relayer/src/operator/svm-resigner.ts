import { Inject, Injectable } from '@nestjs/common';
import type { Keypair } from '@solana/web3.js';
import { type LaneTx, LaneTxRepository } from '../store/lane-tx.repository';
import { SOLANA_RPC, type SolanaRpc } from '../svm/solana-rpc';
import type { Resigner } from '../svm/svm-relay';
import { resignSvmTx } from './svm-operator-tx';
import { SOLANA_OPERATOR_KEYS, type SolanaOperatorKeys, solanaOperatorReady } from './svm-operator-txs';

/**
 * Signs a Solana operator transaction again when its blockhash expired unseen (the Solana relay
 * asks): the stored transaction over a new blockhash, signed by the keys it names. Apart from
 * SvmOperatorTxs, which wakes the relay, so that the relay and the operator's transactions need
 * not each other.
 */
@Injectable()
export class SvmResigner implements Resigner {
  constructor(
    @Inject(LaneTxRepository) private readonly txs: LaneTxRepository,
    @Inject(SOLANA_RPC) private readonly rpc: SolanaRpc | null,
    @Inject(SOLANA_OPERATOR_KEYS) private readonly keys: SolanaOperatorKeys,
  ) {}

  async resign(order: LaneTx, from: 'queued' | 'submitted'): Promise<boolean> {
    const { rpc } = solanaOperatorReady(this.rpc, this.keys);
    const keys = [this.keys.filler, this.keys.vault].filter((k): k is Keypair => k !== undefined);
    const next = resignSvmTx(order.svmTx!, await rpc.latestBlockhash(), keys);
    return this.txs.resignSvm(order.id, from, order.svmSignature!, next);
  }
}
