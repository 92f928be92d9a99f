import { Inject, Injectable } from '@nestjs/common';
import { type Keypair, PublicKey } from '@solana/web3.js';
import { type OperatorTxView, type OrderWire, RpcError } from '@xchain/contracts';
import { SOL, SOL_MINT_PLACEHOLDER, associatedTokenAccount } from '@xchain/svm-orders';
import { LOGGER, token } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { ChainRpcUnavailableError, isChainRpcUnavailable } from '@xchain/messaging';
import { SOLANA_RPC, type SolanaRpc } from '../svm/solana-rpc';
import { SVM_RELAY, type SvmRelay } from '../svm/svm-relay';
import { OperatorTxTables } from '../store/operator-tx.repository';
import {
  type SvmOperatorPlan,
  noWallet,
  planSvmClaimTx,
  planSvmOperatorTx,
  planSvmReturnTx,
  signSvmPlan,
  svmCallToken,
  svmClaimToken,
} from './svm-operator-tx';

/** The relayer's Solana chain (the registry's `solana`): the only one its Solana RPC serves. */
export const SOLANA = 'solana';

/** The operator's Solana keys: SOLANA_FILLER_KEY, SOLANA_VAULT_KEY and SOLANA_TREASURY, each when set. */
export interface SolanaOperatorKeys {
  filler?: Keypair | undefined;
  vault?: Keypair | undefined;
  treasury?: PublicKey | undefined;
}
export const SOLANA_OPERATOR_KEYS = token<SolanaOperatorKeys>('SOLANA_OPERATOR_KEYS');

/** A SendOperatorTx request whose call is a Solana one. */
export interface SvmOperatorRequest {
  kind: string;
  quote_hash: string;
  call:
    | { order: OrderWire; amount?: string; mint_decimals?: number }
    | { return: { deposit_signature: string; deposit_index: number; to: string; mint: string; amount: string; mint_decimals?: number } }
    | { claim: { orders: OrderWire[]; mint_decimals?: number } };
}

/** The field of `call` each Solana kind carries. */
const CALL_FIELD = { fill: 'order', refund: 'order', return: 'return', claim: 'claim' } as const;

/**
 * Solana operator transactions (D15): a fill paid by the filler account, a refund from the vault,
 * a return of a stray deposit from the vault (D16), and a claim of filled orders' deposits from the
 * vault to the treasury (SOLANA_TREASURY).
 * Each is built from the order, signed over a fresh blockhash and stored whole with its signature
 * (one INSERT, a no-op when the (kind, quote hash) row exists) before the Solana relay sends it;
 * the relay follows it as it follows gasless Solana orders and has it signed again (SvmResigner) when
 * its blockhash expired unseen. Keys: SOLANA_FILLER_KEY (fee payer of both) and SOLANA_VAULT_KEY (refunds).
 */
@Injectable()
export class SvmOperatorTxs {
  /** Mint decimals never change: read once per mint. */
  private readonly decimals = new Map<string, number>();

  constructor(
    @Inject(OperatorTxTables) private readonly tables: OperatorTxTables,
    @Inject(SOLANA_RPC) private readonly rpc: SolanaRpc | null,
    @Inject(SOLANA_OPERATOR_KEYS) private readonly keys: SolanaOperatorKeys,
    /** Sends a just-stored row now rather than at its next pass. */
    @Inject(SVM_RELAY) private readonly relay: Pick<SvmRelay, 'wake'> | null,
    @Inject(LOGGER) private readonly log: Logger,
  ) {}

  /** The filler's public key: the wallet of every Solana operator transaction and of the balances read. */
  get wallet(): string | undefined {
    return this.keys.filler?.publicKey.toBase58();
  }

  async send(req: SvmOperatorRequest): Promise<OperatorTxView> {
    const kind = req.kind;
    if (kind !== 'fill' && kind !== 'refund' && kind !== 'return' && kind !== 'claim')
      throw RpcError.invalidArgument([
        { field: 'kind', description: `a Solana operator transaction is a fill, a refund, a return or a claim, not a ${kind}` },
      ]);
    if (!(CALL_FIELD[kind] in req.call))
      throw RpcError.invalidArgument([{ field: 'call', description: `a ${kind} carries call.${CALL_FIELD[kind]}` }]);
    const table = this.tables.of(kind);
    // A later call only answers the state: nothing is built, read or signed again.
    const existing = await table.find(req.quote_hash);
    if (existing) return existing;
    const { rpc, filler } = this.ready();
    const keys = {
      filler,
      ...(this.keys.vault ? { vault: this.keys.vault } : {}),
      ...(this.keys.treasury ? { treasury: this.keys.treasury } : {}),
    };
    let plan: SvmOperatorPlan;
    if ('return' in req.call) {
      const r = req.call.return;
      const mintDecimals = r.mint === SOL ? undefined : await this.mintDecimals(rpc, r.mint, r.mint_decimals);
      plan = planSvmReturnTx(
        {
          quoteHash: req.quote_hash,
          depositSignature: r.deposit_signature,
          depositIndex: r.deposit_index,
          to: r.to,
          mint: r.mint,
          amount: BigInt(r.amount),
          ...(mintDecimals === undefined ? {} : { mintDecimals }),
        },
        keys,
      );
    } else if ('claim' in req.call) {
      const c = req.call.claim;
      const token = svmClaimToken(c.orders);
      const mintDecimals = token === SOL ? undefined : await this.mintDecimals(rpc, token, c.mint_decimals);
      plan = planSvmClaimTx({ batchKey: req.quote_hash, orders: c.orders, ...(mintDecimals === undefined ? {} : { mintDecimals }) }, keys);
    } else {
      const call = req.call;
      const token = svmCallToken(kind, call.order);
      const mintDecimals = token === SOL ? undefined : await this.mintDecimals(rpc, token, call.mint_decimals);
      plan = planSvmOperatorTx(
        {
          kind,
          quoteHash: req.quote_hash,
          order: call.order,
          ...(call.amount === undefined ? {} : { amount: BigInt(call.amount) }),
          ...(mintDecimals === undefined ? {} : { mintDecimals }),
        },
        keys,
      );
    }
    const signed = signSvmPlan(plan, await rpcStep(() => rpc.latestBlockhash(), rpc.url));
    const wallet = filler.publicKey.toBase58();
    const inserted = await table.insert({ key: req.quote_hash, chain: SOLANA, wallet, payload: { vm: 'svm', ...signed } });
    const view = await table.find(req.quote_hash);
    if (!view) throw RpcError.unavailable('the operator transaction was not stored; try again', 'OPERATOR_TX_NOT_STORED');
    if (inserted) {
      this.log.info(
        { kind, quote_hash: req.quote_hash, chain: SOLANA, wallet, signature: signed.signature },
        'operator transaction queued',
      );
      this.relay?.wake(table.laneId(req.quote_hash));
    }
    return view;
  }

  /** The filler's SOL (token: the System program id) or its associated token account's amount of a mint (0 without one). */
  async balance(token: string): Promise<{ wallet: string; balance: bigint }> {
    const { rpc, filler } = this.ready();
    let mint: PublicKey | undefined;
    if (token !== SOL_MINT_PLACEHOLDER) {
      try {
        mint = new PublicKey(token);
      } catch {
        throw RpcError.invalidArgument([{ field: 'token', description: 'is neither the System program id nor a base58 mint' }]);
      }
    }
    const balance = await rpcStep(
      () => (mint ? rpc.tokenAmount(associatedTokenAccount(filler.publicKey, mint).toBase58()) : rpc.balance(filler.publicKey.toBase58())),
      rpc.url,
    );
    return { wallet: filler.publicKey.toBase58(), balance };
  }

  private ready(): { rpc: SolanaRpc; filler: Keypair } {
    return solanaOperatorReady(this.rpc, this.keys);
  }

  /** The chain's decimals of `mint`; a call that states others is refused (TransferChecked would fail on chain, fee paid). */
  private async mintDecimals(rpc: SolanaRpc, mint: string, stated: number | undefined): Promise<number> {
    let known = this.decimals.get(mint);
    if (known === undefined) {
      known = await rpcStep(() => rpc.mintDecimals(mint), rpc.url);
      if (known === undefined)
        throw RpcError.invalidArgument([
          { field: 'call.order', description: `moves ${mint}, which is not an SPL Token mint on this cluster` },
        ]);
      this.decimals.set(mint, known);
    }
    if (stated !== undefined && stated !== known)
      throw RpcError.invalidArgument([{ field: 'call.mint_decimals', description: `is ${stated}; the mint ${mint} has ${known}` }]);
    return known;
  }
}

/** The RPC and the filler key the operator's Solana transactions need, or NO_OPERATOR_WALLET. */
export function solanaOperatorReady(rpc: SolanaRpc | null, keys: SolanaOperatorKeys): { rpc: SolanaRpc; filler: Keypair } {
  if (!rpc) throw noWallet('no Solana RPC (SOLANA_RPC_URL): Solana is not settled by this relayer');
  if (!keys.filler) throw noWallet('no Solana filler key (SOLANA_FILLER_KEY): Solana is not settled by this relayer');
  return { rpc, filler: keys.filler };
}

/**
 * A Solana RPC that does not answer: 503 CHAIN_RPC_UNAVAILABLE (the RPC server answers and logs
 * it), the caller tries again. A read the node refuses is the node's failure too.
 */
async function rpcStep<T>(step: () => Promise<T>, url: string): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof RpcError || isChainRpcUnavailable(err)) throw err;
    throw new ChainRpcUnavailableError(err instanceof Error ? err.message.split('\n')[0]! : String(err), url, {
      chain: SOLANA,
      cause: err,
    });
  }
}
