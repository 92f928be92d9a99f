import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { createWalletClient, http, recoverTypedDataAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { type GaslessQuote, signGaslessQuote } from './gasless-flow';
import { signSolanaTransaction } from './solana-signing';

const HASH = `0x${'ab'.repeat(32)}`;
const TOKEN = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const SPENDER = '0x0000000000000000000000000000000000000a11';

/** The parts of a gasless EVM quote the signing reads, shaped as the gateway serves them. */
function evmQuote(owner: string, withPermit: boolean): GaslessQuote {
  return {
    quote_hash: HASH,
    permit2: {
      domain: { name: 'Permit2', chainId: 8453, verifyingContract: '0x000000000022D473030F116dDEE9F6B43aC78BA3' },
      types: {
        PermitWitnessTransferFrom: [
          { name: 'permitted', type: 'TokenPermissions' },
          { name: 'spender', type: 'address' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
          { name: 'witness', type: 'Witness' },
        ],
        TokenPermissions: [
          { name: 'token', type: 'address' },
          { name: 'amount', type: 'uint256' },
        ],
        Witness: [{ name: 'quoteHash', type: 'bytes32' }],
      },
      primaryType: 'PermitWitnessTransferFrom',
      message: {
        permitted: { token: TOKEN, amount: '25000000' },
        spender: SPENDER,
        nonce: '123456789012345678901234567890',
        deadline: '1900000000',
        witness: { quoteHash: HASH },
      },
    },
    ...(withPermit
      ? {
          erc2612: {
            domain: { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: TOKEN },
            types: {
              Permit: [
                { name: 'owner', type: 'address' },
                { name: 'spender', type: 'address' },
                { name: 'value', type: 'uint256' },
                { name: 'nonce', type: 'uint256' },
                { name: 'deadline', type: 'uint256' },
              ],
            },
            primaryType: 'Permit',
            message: { owner, spender: SPENDER, value: '25000000', nonce: '0', deadline: '1900000000' },
          },
        }
      : {}),
  } as unknown as GaslessQuote;
}

describe('signGaslessQuote', () => {
  const account = privateKeyToAccount(generatePrivateKey());

  it('signs Permit2 and the EIP-2612 permit with a viem local account: the signatures recover to the owner', async () => {
    const q = evmQuote(account.address, true);
    const body = await signGaslessQuote(q, account);
    expect(body).toMatchObject({
      quote_hash: HASH,
      evm: { owner: account.address, permit2_nonce: '123456789012345678901234567890', deadline: '1900000000' },
    });
    const permit2 = q.permit2 as never as Parameters<typeof recoverTypedDataAddress>[0];
    expect(await recoverTypedDataAddress({ ...permit2, signature: body.evm!.signature as `0x${string}` })).toBe(account.address);
    const erc2612 = q.erc2612 as never as Parameters<typeof recoverTypedDataAddress>[0];
    expect(await recoverTypedDataAddress({ ...erc2612, signature: body.evm!.permit_signature as `0x${string}` })).toBe(account.address);
  });

  it('signs with a viem WalletClient as well, and leaves the permit out when the quote serves none', async () => {
    const wallet = createWalletClient({ account, transport: http('http://127.0.0.1:9') });
    const q = evmQuote(account.address, false);
    const body = await signGaslessQuote(q, wallet);
    expect(body.evm?.owner).toBe(account.address);
    expect(body.evm).not.toHaveProperty('permit_signature');
    const permit2 = q.permit2 as never as Parameters<typeof recoverTypedDataAddress>[0];
    expect(await recoverTypedDataAddress({ ...permit2, signature: body.evm!.signature as `0x${string}` })).toBe(account.address);
  });

  it('refuses a signer of the other VM and a quote with nothing to sign', async () => {
    await expect(signGaslessQuote(evmQuote(account.address, false), Keypair.generate())).rejects.toThrow(/EVM chain/);
    await expect(signGaslessQuote({ quote_hash: HASH, svm: { tx_base64: 'AA==' } } as GaslessQuote, account)).rejects.toThrow(/Solana/);
    await expect(signGaslessQuote({ quote_hash: HASH } as GaslessQuote, account)).rejects.toThrow(/nothing to sign/);
  });
});

describe('signSolanaTransaction', () => {
  const feePayer = Keypair.generate();
  const user = Keypair.generate();
  /** An unsigned legacy transaction as a Solana gasless quote serves it: the relayer pays, the user signs too. */
  const served = () => {
    const tx = new Transaction({ feePayer: feePayer.publicKey, recentBlockhash: new PublicKey(Keypair.generate().publicKey).toBase58() });
    tx.add(SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1 }));
    return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
  };
  const signatures = (b64: string) => Transaction.from(Buffer.from(b64, 'base64')).signatures;

  it("signs with a Keypair in the user's own slot only: the signature verifies and the fee payer's slot stays empty", async () => {
    const signed = Transaction.from(Buffer.from(await signSolanaTransaction(served(), user), 'base64'));
    const [payer, mine] = signed.signatures;
    expect(payer).toMatchObject({ publicKey: feePayer.publicKey, signature: null });
    expect(mine?.publicKey.equals(user.publicKey)).toBe(true);
    expect(mine?.signature).not.toBeNull();
    expect(signed.verifySignatures(false)).toBe(true);
  });

  it('signs the same through a wallet (signTransaction with the Transaction class) and through a function', async () => {
    const tx = served();
    const byKey = await signSolanaTransaction(tx, user);
    const wallet = {
      Transaction,
      signTransaction: async (t: Transaction) => {
        t.partialSign(user);
        return t;
      },
    };
    expect(await signSolanaTransaction(tx, wallet)).toBe(byKey);
    expect(await signSolanaTransaction(tx, async (b64) => (b64 === tx ? byKey : 'other'))).toBe(byKey);
    expect(signatures(byKey)).toHaveLength(2);
  });

  it('refuses a key that is not a signer of the transaction, and bytes that are not a transaction', async () => {
    await expect(signSolanaTransaction(served(), Keypair.generate())).rejects.toThrow(/not one of the transaction signers/);
    await expect(signSolanaTransaction('AQ==', user)).rejects.toThrow(/not a Solana transaction/);
  });
});
