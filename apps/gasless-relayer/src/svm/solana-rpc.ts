import { SolanaRpcClient, SolanaRpcUnavailable } from '@xchain/chain-watch';
import { token } from '@xchain/service-kit';
import { SVM_PROGRAMS } from '@xchain/svm-orders';

const SPL_TOKEN_PROGRAM = SVM_PROGRAMS.token.toBase58();
/** An SPL Token mint account: option 4 + authority 32 + supply 8 + decimals 1 + initialized 1 + freeze option 4 + authority 32. */
const MINT_SIZE = 82;
/** An SPL Token account: mint 32 + owner 32 + amount u64 at byte 64, then delegate, state, etc. */
const TOKEN_ACCOUNT_SIZE = 165;

/** A signature's state as `getSignatureStatuses` reports it; undefined when the node has not seen it. */
export interface SignatureStatus {
  slot: number;
  confirmationStatus: 'processed' | 'confirmed' | 'finalized' | null;
  /** The transaction's error when it landed and failed (its fee is still charged). */
  err: unknown;
}

export interface SimulationResult {
  err: unknown;
  logs: string[];
}

/**
 * The few Solana JSON-RPC calls the relayer makes, over plain HTTP with a deadline on each (no
 * websocket: confirmation is polled). Commitment `confirmed` throughout: an order is confirmed at
 * the commitment the API promises, and a blockhash is judged at the same level.
 */
export class SolanaRpc extends SolanaRpcClient {
  async isBlockhashValid(blockhash: string): Promise<boolean> {
    const r = await this.call<{ value: boolean }>('isBlockhashValid', [blockhash, { commitment: 'confirmed' }]);
    return typed(r?.value, 'boolean', 'isBlockhashValid', this.url);
  }

  /** Simulates a signed transaction with its signatures verified and its own blockhash (never replaced). */
  async simulate(txBase64: string): Promise<SimulationResult> {
    const r = await this.call<{ value: { err: unknown; logs?: string[] | null } }>('simulateTransaction', [
      txBase64,
      { encoding: 'base64', sigVerify: true, replaceRecentBlockhash: false, commitment: 'confirmed' },
    ]);
    if (!r || typeof r.value !== 'object' || r.value === null)
      throw new SolanaRpcUnavailable('simulateTransaction: unexpected answer', this.url);
    return { err: r.value.err ?? null, logs: r.value.logs ?? [] };
  }

  /** Sends a signed transaction without preflight (it was simulated) and without the node's own retries (we rebroadcast). */
  async send(txBase64: string): Promise<string> {
    const r = await this.call<string>('sendTransaction', [txBase64, { encoding: 'base64', skipPreflight: true, maxRetries: 0 }]);
    return typed(r, 'string', 'sendTransaction', this.url);
  }

  async signatureStatus(signature: string): Promise<SignatureStatus | undefined> {
    const r = await this.call<{ value: (SignatureStatus | null)[] }>('getSignatureStatuses', [
      [signature],
      { searchTransactionHistory: true },
    ]);
    if (!r || !Array.isArray(r.value)) throw new SolanaRpcUnavailable('getSignatureStatuses: unexpected answer', this.url);
    return r.value[0] ?? undefined;
  }

  /** The fee a landed transaction paid (lamports), when the node still has it. */
  async feeOf(signature: string): Promise<bigint | undefined> {
    const r = await this.call<{ meta?: { fee?: number } | null } | null>('getTransaction', [
      signature,
      { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
    ]);
    const fee = r?.meta?.fee;
    return typeof fee === 'number' && Number.isSafeInteger(fee) && fee >= 0 ? BigInt(fee) : undefined;
  }

  /**
   * The decimals of an SPL Token mint (byte 44 of its account: option tag 4, authority 32, supply 8);
   * undefined when the account is missing or not a mint of the SPL Token program.
   */
  async mintDecimals(mint: string): Promise<number | undefined> {
    const r = await this.call<{ value: { owner: string; data: [string, string] } | null }>('getAccountInfo', [
      mint,
      { encoding: 'base64', commitment: 'confirmed' },
    ]);
    const account = r?.value;
    if (!account) return undefined;
    const data = Buffer.from(account.data?.[0] ?? '', 'base64');
    if (account.owner !== SPL_TOKEN_PROGRAM || data.length !== MINT_SIZE || data[45] !== 1) return undefined;
    return data[44];
  }

  /**
   * The amount an SPL Token account holds (u64 at byte 64); 0 when the account does not exist, so a
   * wallet that never held the token reads as holding none of it.
   */
  async tokenAmount(account: string): Promise<bigint> {
    const r = await this.call<{ value: { owner: string; data: [string, string] } | null }>('getAccountInfo', [
      account,
      { encoding: 'base64', commitment: 'confirmed' },
    ]);
    if (r === undefined || r === null || typeof r !== 'object' || !('value' in r))
      throw new SolanaRpcUnavailable('getAccountInfo: unexpected answer', this.url);
    const info = r.value;
    if (!info) return 0n;
    const data = Buffer.from(info.data?.[0] ?? '', 'base64');
    if (info.owner !== SPL_TOKEN_PROGRAM || data.length !== TOKEN_ACCOUNT_SIZE)
      throw new SolanaRpcUnavailable(`getAccountInfo: ${account} is not an SPL Token account`, this.url);
    return data.readBigUInt64LE(64);
  }

  async balance(address: string): Promise<bigint> {
    const r = await this.call<{ value: number }>('getBalance', [address, { commitment: 'confirmed' }]);
    return BigInt(typed<number>(r?.value, 'number', 'getBalance', this.url));
  }
}

function typed<T>(value: unknown, type: 'string' | 'boolean' | 'number', method: string, url: string): T {
  if (typeof value !== type) throw new SolanaRpcUnavailable(`${method}: unexpected answer`, url);
  return value as T;
}

/** The Solana RPC where SOLANA_RPC_URL is set, else null: for the parts that answer without one (the operator's transactions refuse). */
export const SOLANA_RPC = token<SolanaRpc | null>('SOLANA_RPC');
