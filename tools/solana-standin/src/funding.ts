import { ComputeBudgetProgram, Keypair, type PublicKey, SystemProgram, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { SVM_PROGRAMS, associatedTokenAccount, createAssociatedTokenAccountInstruction, type KeyLike, toKey } from '@xchain/svm-orders';
import type { SolanaLedger } from './ledger';
import { MINT_SIZE, encodeMint, mintToInstruction } from './spl-layout';

/** Lamports the stand-in's faucet starts with: far more than any test spends, below 2^53. */
const FAUCET_LAMPORTS = 4_000_000_000_000_000;

/**
 * Money on the stand-in: a faucet (airdrops are real System transfers from it, so they have a
 * signature and a status), mints placed at any address (the registry's), and tokens minted into
 * associated token accounts by real `CreateIdempotent` + `MintTo` transactions.
 */
export class StandinFunds {
  readonly faucet = Keypair.generate();
  private readonly mintAuthorities = new Map<string, Keypair>();
  private sent = 0;

  constructor(private readonly ledger: SolanaLedger) {
    ledger.svm.setAccount(this.faucet.publicKey, {
      lamports: FAUCET_LAMPORTS,
      data: new Uint8Array(),
      owner: SystemProgram.programId,
      executable: false,
      rentEpoch: 0,
    });
  }

  /** Lamports from the faucet; the signature of the transfer. */
  airdrop(to: KeyLike, lamports: bigint): string {
    if (lamports <= 0n) throw new Error('an airdrop moves at least one lamport');
    return this.send([SystemProgram.transfer({ fromPubkey: this.faucet.publicKey, toPubkey: toKey(to), lamports })], []);
  }

  /**
   * A mint with `decimals`, at `address` (default: a new key), whose authority the stand-in holds.
   * Written directly: a mint at a fixed address (the registry's USDC) cannot be created by a
   * transaction without that address's private key.
   */
  createMint(opts: { decimals: number; address?: KeyLike }): PublicKey {
    const address = opts.address !== undefined ? toKey(opts.address) : Keypair.generate().publicKey;
    const authority = Keypair.generate();
    const lamports = Number(this.ledger.svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE)));
    this.ledger.svm.setAccount(address, {
      lamports,
      data: encodeMint(authority.publicKey, opts.decimals),
      owner: SVM_PROGRAMS.token,
      executable: false,
      rentEpoch: 0,
    });
    this.mintAuthorities.set(address.toBase58(), authority);
    return address;
  }

  /** Opens `owner`'s associated token account for `mint` (nothing when it exists); its address. */
  createTokenAccount(owner: KeyLike, mint: KeyLike): PublicKey {
    this.send([createAssociatedTokenAccountInstruction(this.faucet.publicKey, toKey(owner), toKey(mint))], []);
    return associatedTokenAccount(owner, mint);
  }

  /** `amount` base units of a mint made by `createMint` into `owner`'s associated token account (opened if needed). */
  mintTo(owner: KeyLike, mint: KeyLike, amount: bigint): string {
    const m = toKey(mint);
    const authority = this.mintAuthorities.get(m.toBase58());
    if (!authority) throw new Error(`the stand-in holds no authority over mint ${m.toBase58()}: create it with createMint`);
    return this.send(
      [
        createAssociatedTokenAccountInstruction(this.faucet.publicKey, toKey(owner), m),
        mintToInstruction(m, associatedTokenAccount(owner, m), authority.publicKey, amount),
      ],
      [authority],
    );
  }

  /**
   * One transaction paid by the faucet, sent with preflight: a failure throws the RPC error. A
   * compute-unit limit unique to each send keeps two identical requests in one slot from being the
   * same transaction (which a validator drops as already processed); it changes no fee.
   */
  private send(instructions: TransactionInstruction[], signers: Keypair[]): string {
    const unique = ComputeBudgetProgram.setComputeUnitLimit({ units: 1_400_000 - (this.sent++ % 1_000_000) });
    const tx = new Transaction({
      feePayer: this.faucet.publicKey,
      recentBlockhash: this.ledger.latestBlockhash('processed').blockhash,
    }).add(unique, ...instructions);
    tx.sign(this.faucet, ...signers);
    return this.ledger.submit(tx.serialize(), { skipPreflight: false });
  }
}
