import { type PublicKey, VersionedMessage } from '@solana/web3.js';
import { base58Encode } from '@xchain/order-codec';
import type { Account } from 'litesvm';
import type { StandinFunds } from './funding';
import { type Commitment, RpcFailure, type SolanaLedger } from './ledger';
import { commitment, config, invalidParam, invalidParams, param, pubkey, text, whole, wireBytes } from './rpc-params';
import { decodeMint, decodeTokenAccount, uiAmountString } from './spl-layout';
import { type TxRecord, feeOf } from './tx-record';

export type RpcMethod = (params: unknown[]) => unknown;

/** The version a client sees; `feature-set` is litesvm's, which no client here reads. */
const VERSION = { 'solana-core': '2.2.0', 'feature-set': 0 };
const API_VERSION = '2.2.0';

/**
 * The JSON-RPC methods the stand-in serves, each answering in a validator's wire format
 * (amounts and lamports as bigint, which the server writes as exact JSON numbers).
 */
export function rpcMethods(ledger: SolanaLedger, funds: StandinFunds): Record<string, RpcMethod> {
  const ctx = (value: unknown, slot = ledger.slot) => ({ context: { apiVersion: API_VERSION, slot }, value });

  const accountJson = (account: Account | null, encoding: unknown) => {
    if (!account || (account.lamports() === 0n && account.data().length === 0)) return null;
    const data = account.data();
    let encoded: [string, string];
    if (encoding === 'base64' || encoding === 'jsonParsed') encoded = [Buffer.from(data).toString('base64'), 'base64'];
    else if (encoding === undefined || encoding === 'base58') {
      if (data.length > 128)
        throw invalidParams('Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.');
      encoded = [base58Encode(data), 'base58'];
    } else throw invalidParams(`unsupported encoding: ${String(encoding)}`);
    return {
      data: encoded,
      executable: account.executable(),
      lamports: account.lamports(),
      owner: base58Encode(account.owner()),
      rentEpoch: account.rentEpoch(),
      space: data.length,
    };
  };

  const txJson = (r: TxRecord, encoding: unknown, maxVersion: unknown) => {
    if (r.version === 0 && maxVersion === undefined) {
      throw new RpcFailure(
        -32015,
        'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
      );
    }
    let transaction: unknown;
    if (encoding === undefined || encoding === 'json') transaction = { signatures: [r.signature], message: r.message };
    else if (encoding === 'base64') transaction = [Buffer.from(r.raw).toString('base64'), 'base64'];
    else if (encoding === 'base58') transaction = [base58Encode(r.raw), 'base58'];
    else throw invalidParams(`unsupported encoding: ${String(encoding)}; the stand-in serves json, base64 and base58`);
    return { slot: r.slot, blockTime: r.blockTime, meta: r.meta, transaction, ...(maxVersion !== undefined ? { version: r.version } : {}) };
  };

  const tokenBalance = (address: PublicKey) => {
    const account = ledger.account(address);
    const token =
      account && base58Encode(account.owner()) === 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
        ? decodeTokenAccount(account.data())
        : undefined;
    const mint = token && ledger.account(token.mint);
    const decimals = mint ? decodeMint(mint.data())?.decimals : undefined;
    if (!token || decimals === undefined) throw invalidParam('not a Token account');
    return { amount: token.amount.toString(), decimals, uiAmount: null, uiAmountString: uiAmountString(token.amount, decimals) };
  };

  const status = (r: TxRecord) => {
    const level: Commitment = ledger.statusOf(r);
    return {
      slot: r.slot,
      confirmations: level === 'finalized' ? null : ledger.slot - r.slot,
      err: r.err,
      status: r.err === null ? { Ok: null } : { Err: r.err },
      confirmationStatus: level,
    };
  };

  return {
    getHealth: () => 'ok',
    getVersion: () => VERSION,
    getGenesisHash: () => ledger.genesisHash,
    getSlot: (p) => ledger.commitmentSlot(commitment(config(p, 0))),
    getBlockHeight: (p) => ledger.commitmentSlot(commitment(config(p, 0))),
    getLatestBlockhash: (p) => {
      const latest = ledger.latestBlockhash(commitment(config(p, 0)));
      return ctx({ blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight }, latest.slot);
    },
    isBlockhashValid: (p) => ctx(ledger.isBlockhashValid(text(p, 0, 'a blockhash'))),
    getBalance: (p) => ctx(ledger.account(pubkey(p, 0))?.lamports() ?? 0n),
    getAccountInfo: (p) => ctx(accountJson(ledger.account(pubkey(p, 0)), config(p, 1)['encoding'])),
    getMultipleAccounts: (p) => {
      const list = param<unknown[]>(p, 0);
      if (!Array.isArray(list) || list.length > 100) throw invalidParams('expected an array of at most 100 addresses');
      const encoding = config(p, 1)['encoding'];
      return ctx(list.map((_, i) => accountJson(ledger.account(pubkey(list, i)), encoding)));
    },
    getTokenAccountBalance: (p) => ctx(tokenBalance(pubkey(p, 0))),
    getMinimumBalanceForRentExemption: (p) => ledger.svm.minimumBalanceForRentExemption(BigInt(whole(param(p, 0), 'data length'))),
    getFeeForMessage: (p) => {
      let message: VersionedMessage;
      try {
        message = VersionedMessage.deserialize(wireBytes(text(p, 0, 'a message'), 'base64'));
      } catch (err) {
        throw err instanceof RpcFailure ? err : invalidParams('invalid message');
      }
      if (!ledger.isBlockhashValid(message.recentBlockhash)) return ctx(null);
      return ctx(feeOf({ message }));
    },
    sendTransaction: (p) => {
      const c = config(p, 1);
      return ledger.submit(wireBytes(text(p, 0, 'a transaction'), c['encoding']), { skipPreflight: c['skipPreflight'] === true });
    },
    simulateTransaction: (p) => {
      const c = config(p, 1);
      const accounts = c['accounts'] as { addresses?: unknown[]; encoding?: unknown } | undefined;
      if (accounts && accounts.encoding !== undefined && accounts.encoding !== 'base64')
        throw invalidParams('the stand-in returns simulated accounts in base64 only');
      const keys = accounts?.addresses?.map((_, i) => pubkey(accounts.addresses!, i));
      const value = ledger.simulate(wireBytes(text(p, 0, 'a transaction'), c['encoding']), {
        sigVerify: c['sigVerify'] === true,
        replaceRecentBlockhash: c['replaceRecentBlockhash'] === true,
        ...(keys ? { accounts: keys } : {}),
      });
      return ctx({ ...value, accounts: value.accounts && value.accounts.map((a) => accountJson(a, 'base64')) });
    },
    getSignatureStatuses: (p) => {
      const list = param<unknown[]>(p, 0);
      if (!Array.isArray(list)) throw invalidParams('expected an array of signatures');
      if (list.length > 256) throw invalidParams('Too many inputs provided; max 256');
      return ctx(list.map((s) => (typeof s === 'string' ? ledger.record(s) : undefined)).map((r) => (r ? status(r) : null)));
    },
    getSignaturesForAddress: (p) => {
      const c = config(p, 1);
      const limit = whole(c['limit'], 'limit', 1000);
      if (limit < 1 || limit > 1000) throw invalidParams('Invalid limit; max 1000');
      const records = ledger.signaturesFor(pubkey(p, 0).toBase58(), {
        limit,
        commitment: commitment(c, 'commitment', true),
        ...(typeof c['before'] === 'string' ? { before: c['before'] } : {}),
        ...(typeof c['until'] === 'string' ? { until: c['until'] } : {}),
      });
      return records.map((r) => ({
        signature: r.signature,
        slot: r.slot,
        err: r.err,
        memo: r.memo,
        blockTime: r.blockTime,
        confirmationStatus: ledger.statusOf(r),
      }));
    },
    getTransaction: (p) => {
      const c = config(p, 1);
      const r = ledger.record(text(p, 0, 'a signature'));
      if (!r || r.slot > ledger.commitmentSlot(commitment(c, 'commitment', true))) return null;
      return txJson(r, c['encoding'], c['maxSupportedTransactionVersion']);
    },
    getBlock: (p) => {
      const c = config(p, 1);
      const block = ledger.block(whole(param(p, 0), 'slot'), commitment(c, 'commitment', true));
      const details = c['transactionDetails'] ?? 'full';
      const base = {
        blockhash: block.blockhash,
        previousBlockhash: block.previousBlockhash,
        parentSlot: Math.max(0, block.slot - 1),
        blockTime: block.blockTime,
        blockHeight: block.slot,
        ...(c['rewards'] === false ? {} : { rewards: [] }),
      };
      if (details === 'none') return base;
      if (details === 'signatures') return { ...base, signatures: block.signatures };
      if (details !== 'full') throw invalidParams(`unsupported transactionDetails: ${String(details)}`);
      return {
        ...base,
        transactions: block.signatures.map((s) => {
          const { transaction, meta, version } = txJson(ledger.record(s)!, c['encoding'], c['maxSupportedTransactionVersion']) as {
            transaction: unknown;
            meta: unknown;
            version?: unknown;
          };
          return { transaction, meta, ...(version !== undefined ? { version } : {}) };
        }),
      };
    },
    getBlockTime: (p) => ledger.block(whole(param(p, 0), 'slot'), 'confirmed').blockTime,
    requestAirdrop: (p) => {
      const lamports = param(p, 1);
      if (typeof lamports !== 'number' || !Number.isSafeInteger(lamports) || lamports <= 0)
        throw invalidParams('lamports must be a positive integer');
      return funds.airdrop(pubkey(p, 0), BigInt(lamports));
    },
  };
}
