import { createHash, randomBytes } from 'node:crypto';
import { type PublicKey, VersionedTransaction } from '@solana/web3.js';
import { base58Encode } from '@xchain/order-codec';
import { type Account, FailedTransactionMetadata, LiteSVM } from 'litesvm';
import { type TxRecord, balancesOf, memosOf, messageJson, metaJson, signatureOf, signaturesValid } from './tx-record';
import { txErrorJson, txErrorMessage } from './tx-errors';
import { settleX87 } from './x87';

export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** A JSON-RPC error with the validator's code, message and data. */
export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export interface SlotInfo {
  slot: number;
  blockhash: string;
  previousBlockhash: string;
  blockTime: number;
  signatures: string[];
}

export interface LedgerOptions {
  /** Slots a blockhash stays usable (a validator's 150). */
  blockhashTtlSlots?: number;
  /** Slots between confirmed and finalized (roughly a validator's 32). */
  finalizedDepth?: number;
}

export interface SimulationValue {
  err: unknown;
  logs: string[];
  accounts: null | (Account | null)[];
  unitsConsumed: bigint;
  returnData: null | { programId: string; data: [string, 'base64'] };
  innerInstructions: null;
  replacementBlockhash: null | { blockhash: string; lastValidBlockHeight: number };
}

const KEPT_EMPTY_SLOTS = 10_000;

/**
 * A single-node Solana ledger over litesvm: slots advance on the caller's clock, each with its own
 * blockhash that expires `blockhashTtlSlots` later; a transaction lands in the current slot, which
 * counts as `confirmed` once the next slot opens and `finalized` `finalizedDepth` slots on. It
 * checks blockhashes, duplicates and signatures itself (litesvm checks only its latest blockhash)
 * and keeps the history litesvm does not serve.
 */
export class SolanaLedger {
  readonly svm: LiteSVM;
  readonly ttl: number;
  readonly finalizedDepth: number;
  readonly genesisHash: string;
  private current = 0;
  private readonly seed = randomBytes(16).toString('hex');
  private readonly slots = new Map<number, SlotInfo>();
  private readonly blockhashes = new Map<string, number>();
  private readonly records = new Map<string, TxRecord>();
  private readonly byAddress = new Map<string, TxRecord[]>();

  constructor(opts: LedgerOptions = {}) {
    this.ttl = opts.blockhashTtlSlots ?? 150;
    this.finalizedDepth = opts.finalizedDepth ?? Math.min(32, this.ttl - 1);
    if (!Number.isInteger(this.ttl) || this.ttl < 2) throw new Error('blockhashTtlSlots must be a whole number of at least 2');
    if (!Number.isInteger(this.finalizedDepth) || this.finalizedDepth < 1 || this.finalizedDepth >= this.ttl) {
      throw new Error('finalizedDepth must be at least 1 and below blockhashTtlSlots');
    }
    // Signatures and blockhashes are checked here, against this ledger's own history.
    this.svm = new LiteSVM().withNativeMints().withSigverify(false).withBlockhashCheck(false);
    this.open(0, this.hashOf(-1));
    this.genesisHash = this.slots.get(0)!.blockhash;
    this.advance();
  }

  get slot(): number {
    return this.current;
  }

  commitmentSlot(commitment: Commitment = 'finalized'): number {
    if (commitment === 'processed') return this.current;
    if (commitment === 'confirmed') return this.current - 1;
    return Math.max(0, this.current - this.finalizedDepth);
  }

  /** Opens the next slot(s): a new blockhash, the clock's slot and time moved on. */
  advance(n = 1): void {
    for (let i = 0; i < n; i++) this.open(this.current + 1, this.slots.get(this.current)!.blockhash);
  }

  latestBlockhash(commitment: Commitment = 'finalized'): { slot: number; blockhash: string; lastValidBlockHeight: number } {
    const slot = this.commitmentSlot(commitment);
    return { slot, blockhash: this.slots.get(slot)!.blockhash, lastValidBlockHeight: slot + this.ttl };
  }

  isBlockhashValid(blockhash: string): boolean {
    const slot = this.blockhashes.get(blockhash);
    return slot !== undefined && this.current - slot <= this.ttl;
  }

  decode(raw: Uint8Array): VersionedTransaction {
    let tx: VersionedTransaction;
    try {
      tx = VersionedTransaction.deserialize(raw);
    } catch (err) {
      throw new RpcFailure(
        -32602,
        `invalid transaction: failed to deserialize VersionedTransaction: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    if (tx.message.addressTableLookups.length > 0)
      throw new RpcFailure(-32602, 'invalid transaction: the stand-in does not resolve address lookup tables');
    return tx;
  }

  /**
   * sendTransaction: with preflight, a signature, blockhash, duplicate or execution failure is the
   * validator's JSON-RPC error and nothing lands. Without it, the same first three drop the
   * transaction silently (its signature never gets a status) and an execution failure lands with
   * its error and fee, as on a cluster.
   */
  submit(raw: Uint8Array, opts: { skipPreflight: boolean }): string {
    const tx = this.decode(raw);
    const signature = signatureOf(tx);
    const sigOk = signaturesValid(tx);
    if (!opts.skipPreflight) {
      if (!sigOk) throw new RpcFailure(-32003, 'Transaction signature verification failure');
      const sim = this.simulateDecoded(tx, { replaceRecentBlockhash: false });
      if (sim.err !== null) throw new RpcFailure(-32002, `Transaction simulation failed: ${txErrorMessage(sim.err)}`, sim);
    } else if (!sigOk || this.records.has(signature) || !this.isBlockhashValid(tx.message.recentBlockhash)) {
      return signature;
    }
    this.execute(tx, signature);
    return signature;
  }

  simulate(raw: Uint8Array, opts: { sigVerify: boolean; replaceRecentBlockhash: boolean; accounts?: PublicKey[] }): SimulationValue {
    if (opts.sigVerify && opts.replaceRecentBlockhash)
      throw new RpcFailure(-32602, 'sigVerify may not be used with replaceRecentBlockhash');
    const tx = this.decode(raw);
    if (opts.sigVerify && !signaturesValid(tx)) throw new RpcFailure(-32003, 'Transaction signature verification failure');
    return this.simulateDecoded(tx, opts);
  }

  record(signature: string): TxRecord | undefined {
    return this.records.get(signature);
  }

  statusOf(record: TxRecord): Commitment {
    if (record.slot <= this.commitmentSlot('finalized')) return 'finalized';
    return record.slot <= this.commitmentSlot('confirmed') ? 'confirmed' : 'processed';
  }

  /** Transactions naming `address`, newest first, visible at `commitment`, after `before` and down to (not including) `until`. */
  signaturesFor(address: string, opts: { before?: string; until?: string; limit: number; commitment: Commitment }): TxRecord[] {
    const upTo = this.commitmentSlot(opts.commitment);
    const list = this.byAddress.get(address) ?? [];
    let i = list.length - 1;
    if (opts.before !== undefined) {
      const at = list.findIndex((r) => r.signature === opts.before);
      if (at < 0) return [];
      i = at - 1;
    }
    const out: TxRecord[] = [];
    for (; i >= 0 && out.length < opts.limit; i--) {
      const r = list[i]!;
      if (r.signature === opts.until) break;
      if (r.slot <= upTo) out.push(r);
    }
    return out;
  }

  /** A slot's block as seen at `commitment`; -32004 beyond it, -32009 when its record is gone. */
  block(slot: number, commitment: Commitment = 'finalized'): SlotInfo {
    if (slot > this.commitmentSlot(commitment)) throw new RpcFailure(-32004, `Block not available for slot ${slot}`);
    const info = this.slots.get(slot);
    if (!info) throw new RpcFailure(-32009, `Slot ${slot} was skipped, or missing in long-term storage`);
    return info;
  }

  private simulateDecoded(tx: VersionedTransaction, opts: { replaceRecentBlockhash: boolean; accounts?: PublicKey[] }): SimulationValue {
    const latest = this.latestBlockhash('processed');
    const refused = (err: string): SimulationValue => ({
      err,
      logs: [],
      accounts: null,
      unitsConsumed: 0n,
      returnData: null,
      innerInstructions: null,
      replacementBlockhash: null,
    });
    if (!opts.replaceRecentBlockhash) {
      if (this.records.has(signatureOf(tx))) return refused('AlreadyProcessed');
      if (!this.isBlockhashValid(tx.message.recentBlockhash)) return refused('BlockhashNotFound');
    }
    const result = this.svm.simulateTransaction(tx);
    settleX87();
    const replacementBlockhash = opts.replaceRecentBlockhash
      ? { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight }
      : null;
    if (result instanceof FailedTransactionMetadata) {
      const meta = result.meta();
      return {
        err: txErrorJson(result.err()),
        logs: meta.logs(),
        accounts: null,
        unitsConsumed: meta.computeUnitsConsumed(),
        returnData: null,
        innerInstructions: null,
        replacementBlockhash,
      };
    }
    const meta = result.meta();
    const post = new Map(result.postAccounts().map(([key, account]) => [key.toBase58(), account]));
    const ret = meta.returnData();
    return {
      err: null,
      logs: meta.logs(),
      accounts: opts.accounts ? opts.accounts.map((k) => post.get(k.toBase58()) ?? this.account(k)) : null,
      unitsConsumed: meta.computeUnitsConsumed(),
      returnData:
        ret.data().length > 0
          ? { programId: base58Encode(ret.programId()), data: [Buffer.from(ret.data()).toString('base64'), 'base64'] }
          : null,
      innerInstructions: null,
      replacementBlockhash,
    };
  }

  /**
   * An account as litesvm's own type (u64 lamports as bigint; its wrapper's getAccount rounds them
   * to a JS number), the same type a simulation's post-state comes in.
   */
  account(key: PublicKey): Account | null {
    const inner = (this.svm as unknown as { inner: { getAccount(k: Uint8Array): Account | null } }).inner;
    return inner.getAccount(key.toBytes());
  }

  private execute(tx: VersionedTransaction, signature: string): void {
    const keys = tx.message.staticAccountKeys;
    const pre = balancesOf(this.svm, keys);
    const result = this.svm.sendTransaction(tx);
    settleX87();
    const post = balancesOf(this.svm, keys);
    const failed = result instanceof FailedTransactionMetadata;
    // Failing before it ran (no fee payer, fee not covered) charges nothing and lands nowhere.
    if (failed && post.lamports[0]! >= pre.lamports[0]!) return;
    const err = failed ? txErrorJson(result.err()) : null;
    const info = this.slots.get(this.current)!;
    const record: TxRecord = {
      signature,
      slot: this.current,
      blockTime: info.blockTime,
      raw: tx.serialize(),
      version: tx.version === 0 ? 0 : 'legacy',
      message: messageJson(tx),
      meta: metaJson(err, failed ? result.meta() : result, pre, post),
      err,
      memo: memosOf(tx),
      accounts: keys.map((k) => k.toBase58()),
    };
    this.records.set(signature, record);
    info.signatures.push(signature);
    for (const address of new Set(record.accounts)) {
      const list = this.byAddress.get(address) ?? [];
      list.push(record);
      this.byAddress.set(address, list);
    }
  }

  private hashOf(slot: number): string {
    return base58Encode(createHash('sha256').update(`${this.seed}:${slot}`).digest());
  }

  private open(slot: number, previousBlockhash: string): void {
    const blockTime = Math.floor(Date.now() / 1000);
    const blockhash = this.hashOf(slot);
    this.current = slot;
    this.slots.set(slot, { slot, blockhash, previousBlockhash, blockTime, signatures: [] });
    this.blockhashes.set(blockhash, slot);
    for (const [hash, at] of this.blockhashes) if (slot - at > this.ttl) this.blockhashes.delete(hash);
    const old = this.slots.get(slot - KEPT_EMPTY_SLOTS);
    if (old && old.signatures.length === 0 && old.slot !== 0) this.slots.delete(old.slot);
    const clock = this.svm.getClock();
    clock.slot = BigInt(slot);
    clock.unixTimestamp = BigInt(blockTime);
    this.svm.setClock(clock);
  }
}
