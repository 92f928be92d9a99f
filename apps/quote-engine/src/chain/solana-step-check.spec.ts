import { Keypair } from '@solana/web3.js';
import { ZERO_BYTES32, hashOrder, orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { type OrderStep, SOL, associatedTokenAccount, vaultTokenAccount } from '@xchain/svm-orders';
import { type StoredQuote, checkSolanaStep } from './solana-step-check';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const key = () => Keypair.generate().publicKey.toBase58();
const [vault, user, recipient, filler, stranger] = [key(), key(), key(), key(), key()];
const ctx = { chain: 'solana', fillers: new Set([filler]) };
/** Retention of every quote here ends at this unix second. */
const RETAINED_SECS = 1_795_000_000;
const RETAINED_UNTIL = new Date(RETAINED_SECS * 1000);

function quote(over: { src?: string; dst?: string; gasDrop?: bigint; srcChain?: string; dstChain?: string } = {}) {
  const order = sampleOrder({
    srcChainId: 792703809n,
    dstChainId: 792703809n,
    srcToken: over.src ? toBytes32('svm', over.src) : ZERO_BYTES32,
    dstToken: over.dst ? toBytes32('svm', over.dst) : ZERO_BYTES32,
    amountIn: 1_000_000n,
    amountOut: 900_000n,
    minAmountOut: 890_000n,
    gasDrop: over.gasDrop ?? 0n,
    recipient: toBytes32('svm', recipient),
    refundAddress: toBytes32('svm', user),
    depositTarget: toBytes32('svm', vault),
  });
  const stored: StoredQuote = {
    srcChain: over.srcChain ?? 'solana',
    dstChain: over.dstChain ?? 'solana',
    order: orderToWire(order, []),
    retainedUntil: RETAINED_UNTIL,
  };
  return { stored, quoteHash: hashOrder(order) };
}

const step = (kind: OrderStep['kind'], quoteHash: string, transfers: OrderStep['transfers']): OrderStep => ({
  kind,
  quoteHash,
  index: 1,
  transfers,
});
const sol = (from: string, to: string, amount: bigint) => ({ mint: SOL, from, to, authority: from, amount });
const spl = (mint: string, owner: string, to: string, amount: bigint) => ({
  mint,
  from: associatedTokenAccount(owner, mint).toBase58(),
  to,
  authority: owner,
  amount,
});

describe('checkSolanaStep', () => {
  it('accepts a deposit of exactly amount_in of the source token into the vault (SOL to the vault, SPL to its token account)', () => {
    const native = quote();
    expect(checkSolanaStep(step('deposit', native.quoteHash, [sol(user, vault, 1_000_000n)]), native.stored, ctx)).toEqual({
      ok: true,
      type: 'deposited',
      amount: 1_000_000n,
    });
    const token = quote({ src: USDC });
    const into = vaultTokenAccount(vault, USDC).toBase58();
    expect(checkSolanaStep(step('deposit', token.quoteHash, [spl(USDC, user, into, 1_000_000n)]), token.stored, ctx)).toEqual({
      ok: true,
      type: 'deposited',
      amount: 1_000_000n,
    });
  });

  it('refuses a deposit that is short, in another token, to another account, for an unknown quote, or of a quote from another chain', () => {
    const { stored, quoteHash } = quote({ src: USDC });
    const into = vaultTokenAccount(vault, USDC).toBase58();
    const reason = (s: OrderStep, ...q: [StoredQuote | undefined] | []) => {
      const r = checkSolanaStep(s, q.length ? q[0] : stored, ctx);
      return r.ok ? 'accepted' : r.reason;
    };
    expect(reason(step('deposit', quoteHash, [spl(USDC, user, into, 999_999n)]))).toMatch(/amount_in is 1000000/);
    expect(reason(step('deposit', quoteHash, [sol(user, vault, 1_000_000n)]))).toMatch(/source token is EPjF/);
    expect(reason(step('deposit', quoteHash, [spl(USDC, user, associatedTokenAccount(stranger, USDC).toBase58(), 1_000_000n)]))).toMatch(
      /not the vault/,
    );
    expect(reason(step('deposit', quoteHash, [spl(USDC, user, into, 1_000_000n)]), undefined)).toBe('no such quote');
    expect(reason(step('deposit', quoteHash, [spl(USDC, user, into, 1_000_000n)]), { ...stored, srcChain: 'base' })).toMatch(
      /source chain is base/,
    );
    expect(reason(step('deposit', `0x${'00'.repeat(32)}`, [spl(USDC, user, into, 1_000_000n)]))).toMatch(/does not hash/);
  });

  it('gives a deposit that would be returned its reason: unknown quote, wrong token, wrong amount, after retention; a good one within retention is accepted', () => {
    const { stored, quoteHash } = quote({ src: USDC });
    const into = vaultTokenAccount(vault, USDC).toBase58();
    const at = (s: OrderStep, blockTime: number, ...q: [StoredQuote | undefined] | []) =>
      checkSolanaStep(s, q.length ? q[0] : stored, { ...ctx, blockTime });
    const good = step('deposit', quoteHash, [spl(USDC, user, into, 1_000_000n)]);
    expect(at(good, RETAINED_SECS)).toEqual({ ok: true, type: 'deposited', amount: 1_000_000n });
    expect(at(good, RETAINED_SECS + 1)).toEqual({
      ok: false,
      stray: 'AFTER_RETENTION',
      reason: expect.stringMatching(/after the quote's retention ended at 2026/),
    });
    expect(at(good, RETAINED_SECS, undefined)).toEqual({ ok: false, stray: 'NO_QUOTE', reason: 'no such quote' });
    expect(at(step('deposit', quoteHash, [spl(USDC, user, into, 1_000_001n)]), RETAINED_SECS)).toMatchObject({
      ok: false,
      stray: 'WRONG_AMOUNT',
    });
    expect(at(step('deposit', quoteHash, [sol(user, vault, 1_000_000n)]), RETAINED_SECS)).toMatchObject({
      ok: false,
      stray: 'WRONG_TOKEN',
    });
    expect(at(good, RETAINED_SECS, { ...stored, srcChain: 'base' })).toMatchObject({ ok: false, stray: 'MISMATCH' });
    // A fill or a refund that does not match moved the operator's own funds: never one to return.
    const back = associatedTokenAccount(user, USDC).toBase58();
    expect(at({ ...step('refund', quoteHash, [spl(USDC, vault, back, 1n)]) }, RETAINED_SECS)).not.toHaveProperty('stray');
  });

  it("accepts a fill a filler paid: at least min_amount_out of the destination token to the recipient's account, and the gas drop in SOL", () => {
    const { stored, quoteHash } = quote({ dst: USDC, gasDrop: 5000n, srcChain: 'base' });
    const to = associatedTokenAccount(recipient, USDC).toBase58();
    expect(checkSolanaStep(step('fill', quoteHash, [spl(USDC, filler, to, 890_000n), sol(filler, recipient, 5000n)]), stored, ctx)).toEqual(
      { ok: true, type: 'fulfilled', amount: 890_000n },
    );
    const short = checkSolanaStep(step('fill', quoteHash, [spl(USDC, filler, to, 889_999n), sol(filler, recipient, 5000n)]), stored, ctx);
    expect(short).toEqual({ ok: false, reason: expect.stringMatching(/below min_amount_out 890000/) });
    expect(checkSolanaStep(step('fill', quoteHash, [spl(USDC, filler, to, 900_000n)]), stored, ctx)).toEqual({
      ok: false,
      reason: expect.stringMatching(/gas drop of 0/),
    });
    // Paid by someone who is not a filler: not our fill.
    expect(
      checkSolanaStep(step('fill', quoteHash, [spl(USDC, stranger, to, 900_000n), sol(stranger, recipient, 5000n)]), stored, ctx).ok,
    ).toBe(false);
    // A fill is read on the destination chain only.
    expect(
      checkSolanaStep(
        step('fill', quoteHash, [spl(USDC, filler, to, 900_000n), sol(filler, recipient, 5000n)]),
        { ...stored, dstChain: 'base' },
        ctx,
      ).ok,
    ).toBe(false);
  });

  it('counts the gas drop on top of min_amount_out when the destination token is SOL, and reports what was delivered', () => {
    const { stored, quoteHash } = quote({ gasDrop: 5000n, srcChain: 'base' });
    expect(
      checkSolanaStep(step('fill', quoteHash, [sol(filler, recipient, 900_000n), sol(filler, recipient, 5000n)]), stored, ctx),
    ).toEqual({ ok: true, type: 'fulfilled', amount: 900_000n });
    expect(checkSolanaStep(step('fill', quoteHash, [sol(filler, recipient, 894_999n)]), stored, ctx).ok).toBe(false);
  });

  it('accepts a refund of amount_in from the vault to refund_address only', () => {
    const { stored, quoteHash } = quote({ src: USDC });
    const back = associatedTokenAccount(user, USDC).toBase58();
    const fromVault = { ...spl(USDC, vault, back, 1_000_000n), from: vaultTokenAccount(vault, USDC).toBase58() };
    expect(checkSolanaStep(step('refund', quoteHash, [fromVault]), stored, ctx)).toEqual({
      ok: true,
      type: 'refunded',
      amount: 1_000_000n,
    });
    expect(checkSolanaStep(step('refund', quoteHash, [{ ...fromVault, authority: stranger }]), stored, ctx)).toEqual({
      ok: false,
      reason: expect.stringMatching(/not the vault/),
    });
    expect(
      checkSolanaStep(step('refund', quoteHash, [{ ...fromVault, to: associatedTokenAccount(stranger, USDC).toBase58() }]), stored, ctx),
    ).toEqual({
      ok: false,
      reason: expect.stringMatching(/not refund_address/),
    });
  });
});
