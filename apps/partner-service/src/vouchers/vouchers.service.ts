import { Inject, Injectable } from '@nestjs/common';
import { RpcError } from '@xchain/contracts';
import { type Hex, toBytes32 } from '@xchain/order-codec';
import { buildSolanaVoucherRedemption, encodeVoucherRedemption, signVoucher, type VoucherStruct } from '@xchain/partner-chain';
import { Ids, token as typedToken } from '@xchain/service-kit';
import { isAddress } from 'viem';
import { privateKeyToAddress } from 'viem/accounts';
import { failedPrecondition } from '../caller-guard';
import type { VoucherRedeemedLog } from '../chain/evm-chain';
import { PARTNERS_CONFIG, type PartnersConfig } from '../config';
import { RegistryClient } from '../registry-client';
import { SolanaRpc } from './solana-rpc';
import { type Voucher, VouchersRepository } from './vouchers.repository';

export const VOUCHER_SIGNER_KEY = typedToken<Hex>('VOUCHER_SIGNER_KEY');
const U64_MAX = (1n << 64n) - 1n;
const SOLANA_KEY = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/**
 * Vouchers pay out accrued referral fees. The operator issues them (partner-admin); each groups
 * every not-yet-vouchered accrual of one (referrer, chain, token), is signed with the operator key
 * (EIP-712, see libs/partner-chain) and marks those accruals, so no accrual is vouchered twice.
 */
@Injectable()
export class VouchersService {
  constructor(
    @Inject(VouchersRepository) private readonly repo: VouchersRepository,
    @Inject(PARTNERS_CONFIG) private readonly config: PartnersConfig,
    @Inject(RegistryClient) private readonly registry: RegistryClient,
    @Inject(VOUCHER_SIGNER_KEY) private readonly signerKey: Hex,
    @Inject(SolanaRpc) private readonly solana: Pick<SolanaRpc, 'latestBlockhash'>,
    @Inject(Ids) private readonly ids: Ids,
  ) {}

  async issue(partnerId: string) {
    const chains = new Map<string, { vm: 'evm' | 'svm'; chainId: string; router: string }>();
    for (const name of Object.keys(this.config.voucher_routers)) {
      const c = await this.registry.chain(name);
      if (c) chains.set(name, { vm: c.vm, chainId: c.chain_id, router: this.config.voucher_routers[name]! });
    }
    const issued = await this.repo.transaction(async (tx) => {
      // One issuer per partner at a time; the row locks below make each accrual count once.
      await this.repo.lockPartner(tx, partnerId);
      const open = await this.repo.openAccruals(tx, partnerId);
      const groups = new Map<string, typeof open>();
      for (const a of open) {
        const k = `${a.referrer}|${a.chain}|${a.token}`;
        groups.set(k, [...(groups.get(k) ?? []), a]);
      }
      const out: Voucher[] = [];
      for (const items of groups.values()) {
        const first = items[0]!;
        const chain = chains.get(first.chain);
        if (!chain) continue; // no redeeming router on this chain yet: the accruals wait
        const amount = items.reduce((s, a) => s + BigInt(a.amount), 0n);
        if (chain.vm === 'svm' && amount > U64_MAX) throw failedPrecondition('a Solana voucher amount exceeds u64', 'VOUCHER_TOO_LARGE');
        const struct: VoucherStruct = {
          id: this.ids.bytes32(),
          chainId: BigInt(chain.chainId),
          router: toBytes32(chain.vm, chain.router),
          token: toBytes32(chain.vm, first.token),
          referrer: toBytes32(chain.vm, first.referrer),
          amount,
        };
        const signature = await signVoucher(struct, this.signerKey);
        const v = await this.repo.create(tx, {
          id: struct.id,
          partnerId,
          chain: first.chain,
          chainId: chain.chainId,
          routerAddress: chain.router,
          token: first.token,
          tokenSymbol: first.token_symbol,
          decimals: Number(first.decimals),
          referrer: first.referrer,
          amount: amount.toString(),
          signature,
          calldata: chain.vm === 'evm' ? encodeVoucherRedemption(struct, signature) : '',
        });
        await this.repo.assignAccruals(
          tx,
          items.map((a) => a.id),
          v.id,
        );
        out.push(v);
      }
      return out;
    });
    return { vouchers: issued.map(voucherView) };
  }

  async list(partnerId: string) {
    const rows = await this.repo.list(partnerId);
    return { vouchers: rows.map(voucherView) };
  }

  /**
   * A `VoucherRedeemed` event of a voucher router: the voucher is redeemed, by that transaction,
   * at that block's time. An id we never issued, or an event from another chain's or another
   * router's address, changes nothing.
   */
  async markRedeemed(
    chain: string,
    log: VoucherRedeemedLog,
    blockTime: () => Promise<Date>,
  ): Promise<'redeemed' | 'duplicate' | 'unknown'> {
    const v = await this.repo.byId(log.voucherId.toLowerCase());
    if (!v || v.chain !== chain || v.routerAddress.toLowerCase() !== log.router.toLowerCase()) return 'unknown';
    if (v.redeemed) return 'duplicate';
    return (await this.repo.markRedeemed(v.id, log.txHash.toLowerCase(), await blockTime())) ? 'redeemed' : 'duplicate';
  }

  /** Another partner's voucher is NOT_FOUND, like one that does not exist. */
  async buildRedemption(partnerId: string, voucherId: string, payer: string) {
    const v = await this.repo.owned(partnerId, voucherId.toLowerCase());
    if (!v) throw RpcError.notFound('no such voucher', 'VOUCHER_NOT_FOUND');
    if (v.redeemed) throw failedPrecondition('the voucher is already redeemed', 'VOUCHER_REDEEMED');
    const chain = await this.registry.chain(v.chain);
    if (!chain) throw RpcError.unavailable(`chain ${v.chain} is not in the registry`, 'UNKNOWN_CHAIN');
    if (chain.vm === 'evm') {
      if (!isAddress(payer, { strict: false }))
        throw RpcError.invalidArgument([{ field: 'payer', description: 'is not an EVM address' }], 'INVALID_ADDRESS');
      // EVM: the bytes of the `redeem` call, to send to router_address with value 0 from any account.
      return { tx_base64: Buffer.from(v.calldata.slice(2), 'hex').toString('base64') };
    }
    if (!SOLANA_KEY.test(payer))
      throw RpcError.invalidArgument([{ field: 'payer', description: 'is not a Solana public key' }], 'INVALID_ADDRESS');
    const struct: VoucherStruct = {
      id: v.id as Hex,
      chainId: BigInt(v.chainId),
      router: toBytes32('svm', v.routerAddress),
      token: toBytes32('svm', v.token),
      referrer: toBytes32('svm', v.referrer),
      amount: BigInt(v.amount.toFixed()),
    };
    let tx: string;
    try {
      tx = buildSolanaVoucherRedemption({
        programId: v.routerAddress,
        payer,
        referrer: v.referrer,
        voucher: struct,
        signature: v.signature as Hex,
        signer: privateKeyToAddress(this.signerKey),
        recentBlockhash: await this.solana.latestBlockhash(),
      });
    } catch (err) {
      if (err instanceof RpcError) throw err;
      throw RpcError.invalidArgument(
        [{ field: 'payer', description: err instanceof Error ? err.message : 'is not usable' }],
        'INVALID_ADDRESS',
      );
    }
    return { tx_base64: tx };
  }
}

export function voucherView(v: Voucher) {
  return {
    id: v.id,
    chain: v.chain,
    chain_id: v.chainId,
    router_address: v.routerAddress,
    token: v.token,
    referrer: v.referrer,
    amount: v.amount.toFixed(),
    signature: v.signature,
    calldata: v.calldata,
    redeemed: v.redeemed,
    ...(v.redeemTx ? { redeem_tx: v.redeemTx } : {}),
    created_at: v.createdAt.toISOString(),
    ...(v.redeemedAt ? { redeemed_at: v.redeemedAt.toISOString() } : {}),
    token_symbol: v.tokenSymbol,
    decimals: v.decimals,
  };
}
