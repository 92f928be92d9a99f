import { createPrivateKey, sign } from 'node:crypto';
import { Keypair, Message, SystemProgram, Transaction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { RpcError } from '@xchain/contracts';
import { base58Decode, orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { depositInstructions, vaultTokenAccount } from '@xchain/svm-orders';
import {
  checkFeePayerUnused,
  checkInstructions,
  checkSignatures,
  coSign,
  decodeTransaction,
  feePayerOf,
  storedTxFacts,
} from './svm-transaction';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const feePayer = Keypair.generate();
const user = Keypair.generate();
const vault = Keypair.generate().publicKey;
const blockhash = Keypair.generate().publicKey.toBase58();
const wire = orderToWire(
  sampleOrder({
    srcChainId: 792703809n,
    srcToken: toBytes32('svm', USDC),
    refundAddress: toBytes32('svm', user.publicKey.toBase58()),
    depositTarget: toBytes32('svm', vault.toBase58()),
    gasless: true,
  }),
  [],
);
const deposit = () => depositInstructions({ order: wire, owner: user.publicKey, vault, mintDecimals: 6 });

/** What a wallet sends back: the instructions given, its own signature, the fee payer's slot left empty. */
function signed(ixs = deposit(), signers: Keypair[] = [user], payer = feePayer.publicKey): string {
  const tx = new Transaction({ feePayer: payer, recentBlockhash: blockhash }).add(...ixs);
  if (signers.length) tx.partialSign(...signers);
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
}

/** A raw ed25519 signature with node:crypto (the key's 32-byte seed as PKCS#8). */
function ed25519(key: Keypair, message: Uint8Array): Buffer {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(key.secretKey.slice(0, 32))]);
  return sign(null, message, createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
}

function reason(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof RpcError) return (err.status.details[0] as { reason: string }).reason;
    throw err;
  }
  throw new Error('expected a refusal');
}

function allChecks(base64: string) {
  const tx = decodeTransaction(base64);
  checkFeePayerUnused(tx);
  checkSignatures(tx);
  checkInstructions(tx, deposit());
  return tx;
}

describe('svm.tx_base64 checks', () => {
  it('accepts the deposit signed by its owner, and the co-signed bytes verify for both signers', () => {
    const tx = allChecks(signed());
    expect(feePayerOf(tx).toBase58()).toBe(feePayer.publicKey.toBase58());
    const out = coSign(tx, feePayer);
    const sent = Transaction.from(Buffer.from(out.base64, 'base64'));
    expect(sent.verifySignatures(true)).toBe(true);
    expect(Buffer.from(sent.signatures[0]!.signature!).equals(Buffer.from(base58Decode(out.signature)))).toBe(true);
    expect(storedTxFacts(out.base64)).toEqual({ signature: out.signature, blockhash });
    // Deterministic: the same transaction always gets the same id, so a retry never makes another.
    expect(coSign(decodeTransaction(signed()), feePayer).signature).toBe(out.signature);
  });

  it('accepts the same instructions compiled with another account order', () => {
    // Same message semantics, account table reordered by hand (what another library might emit).
    const tx = new Transaction({ feePayer: feePayer.publicKey, recentBlockhash: blockhash }).add(...deposit());
    const message = tx.compileMessage();
    const readonly = message.accountKeys.slice(message.header.numRequiredSignatures);
    const writableCount = readonly.length - message.header.numReadonlyUnsignedAccounts;
    const ro = readonly.slice(writableCount).reverse(); // reorder the read-only unsigned accounts
    const keys = [...message.accountKeys.slice(0, message.header.numRequiredSignatures), ...readonly.slice(0, writableCount), ...ro];
    const remap = (i: number) => keys.findIndex((k) => k.equals(message.accountKeys[i]!));
    const reordered = new Message({
      header: message.header,
      accountKeys: keys.map((k) => k.toBase58()),
      recentBlockhash: blockhash,
      instructions: message.instructions.map((ix) => ({
        ...ix,
        programIdIndex: remap(ix.programIdIndex),
        accounts: ix.accounts.map(remap),
      })),
    });
    expect(reordered.accountKeys).not.toEqual(message.accountKeys);
    const bytes = reordered.serialize();
    const wireTx = Buffer.concat([Buffer.from([2]), Buffer.alloc(64), ed25519(user, bytes), bytes]);
    expect(() => allChecks(wireTx.toString('base64'))).not.toThrow();
  });

  it('refuses what is not a legacy transaction', () => {
    expect(reason(() => decodeTransaction('not base64!'))).toBe('INVALID_TRANSACTION');
    expect(reason(() => decodeTransaction('AA=='))).toBe('INVALID_TRANSACTION');
    expect(reason(() => decodeTransaction(`${signed()}AAAA`))).toBe('INVALID_TRANSACTION');
    const v0 = new VersionedTransaction(
      new TransactionMessage({ payerKey: feePayer.publicKey, recentBlockhash: blockhash, instructions: deposit() }).compileToV0Message(),
    );
    v0.sign([user]);
    expect(reason(() => decodeTransaction(Buffer.from(v0.serialize()).toString('base64')))).toBe('VERSIONED_TRANSACTION');
  });

  it('refuses a fee payer used in an instruction: a transfer of its lamports, or as the transfer authority', () => {
    const drain = SystemProgram.transfer({ fromPubkey: feePayer.publicKey, toPubkey: user.publicKey, lamports: 1_000_000n });
    expect(reason(() => allChecks(signed([...deposit(), drain])))).toBe('FEE_PAYER_IN_INSTRUCTION');
    const asOwner = depositInstructions({ order: wire, owner: feePayer.publicKey, vault, mintDecimals: 6 });
    expect(reason(() => allChecks(signed(asOwner, [])))).toBe('FEE_PAYER_IN_INSTRUCTION');
  });

  it('refuses a missing or a forged signature of the owner', () => {
    expect(reason(() => allChecks(signed(deposit(), [])))).toBe('MISSING_SIGNATURE');
    const forged = decodeTransaction(signed());
    forged.bytes.set(ed25519(Keypair.generate(), forged.messageBytes), forged.sigStart + 64); // another key's signature in the owner's slot
    expect(reason(() => allChecks(Buffer.from(forged.bytes).toString('base64')))).toBe('INVALID_SIGNATURE');
    const stale = decodeTransaction(signed());
    stale.bytes.set(ed25519(user, Buffer.from('another message')), stale.sigStart + 64); // the owner's key, another message
    expect(reason(() => allChecks(Buffer.from(stale.bytes).toString('base64')))).toBe('INVALID_SIGNATURE');
  });

  it('refuses instructions that are not exactly the deposit: another destination, amount, program, an extra or a missing instruction, more privilege', () => {
    const [transfer, memo] = deposit() as [ReturnType<typeof deposit>[0], ReturnType<typeof deposit>[0]];
    const thief = Keypair.generate().publicKey;
    const swapped = { ...transfer, keys: transfer.keys.map((k, i) => (i === 2 ? { ...k, pubkey: vaultTokenAccount(thief, USDC) } : k)) };
    expect(reason(() => allChecks(signed([swapped as typeof transfer, memo])))).toBe('INSTRUCTIONS_MISMATCH');
    const data = Buffer.from(transfer.data);
    data[1] = (data[1]! + 1) & 0xff;
    expect(reason(() => allChecks(signed([{ ...transfer, data } as typeof transfer, memo])))).toBe('INSTRUCTIONS_MISMATCH');
    expect(reason(() => allChecks(signed([memo, transfer])))).toBe('INSTRUCTIONS_MISMATCH');
    expect(reason(() => allChecks(signed([transfer])))).toBe('INSTRUCTIONS_MISMATCH');
    const extra = SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: thief, lamports: 1n });
    expect(reason(() => allChecks(signed([transfer, memo, extra])))).toBe('INSTRUCTIONS_MISMATCH');
    const writableMint = { ...transfer, keys: transfer.keys.map((k, i) => (i === 1 ? { ...k, isWritable: true } : k)) };
    expect(reason(() => allChecks(signed([writableMint as typeof transfer, memo])))).toBe('INSTRUCTIONS_MISMATCH');
  });
});
