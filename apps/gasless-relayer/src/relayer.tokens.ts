import { type HealthCheck, token } from '@xchain/service-kit';
import type { SvmOperatorTxs } from './operator/svm-operator-txs';
import type { SvmRelay } from './svm/svm-relay';
import type { SvmSubmit } from './svm/svm-submit';

/**
 * Solana's parts, built together (each calls the other): the operator's transactions always (they
 * answer NO_OPERATOR_WALLET without an RPC or a key); the relay with an RPC and a fee payer or a
 * filler key; gasless submits and the fee payer's readiness check with an RPC and a fee payer.
 */
export interface SvmParts {
  operator: SvmOperatorTxs;
  relay?: SvmRelay;
  submit?: { submit: SvmSubmit; relay: SvmRelay };
  health?: HealthCheck;
}
export const SVM_PARTS = token<SvmParts>('SVM_PARTS');
