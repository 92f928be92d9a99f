import { Keypair, Transaction } from '@solana/web3.js';
import { SolanaRpcRefused, SolanaRpcUnavailable } from '@xchain/chain-watch';
import { RpcError } from '@xchain/contracts';
import { chainRpcFailure, chainRpcUnavailable } from '@xchain/messaging';
import { base58Decode, orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import { depositInstructions } from '@xchain/svm-orders';
import type { SolanaRpc } from './solana-rpc';
import { SvmSubmit, type SvmQuote } from './svm-submit';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const feePayer = Keypair.generate();
const user = Keypair.generate();
const vault = Keypair.generate().publicKey.toBase58();
const blockhash = Keypair.generate().publicKey.toBase58();
const wire = orderToWire(
  sampleOrder({
    srcChainId: 792703809n,
    srcToken: toBytes32('svm', USDC),
    refundAddress: toBytes32('svm', user.publicKey.toBase58()),
    depositTarget: toBytes32('svm', vault),
    gasless: true,
  }),
  [],
);
const quote: SvmQuote = { order: wire, deposit_target: vault, fee_payer: feePayer.publicKey.toBase58() };

function signedBy(payer = feePayer.publicKey): string {
  const tx = new Transaction({ feePayer: payer, recentBlockhash: blockhash }).add(
    ...depositInstructions({ order: wire, owner: user.publicKey, vault, mintDecimals: 6 }),
  );
  tx.partialSign(user);
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64');
}

/** SvmSubmit's checks with the Solana RPC faked: what each refusal says, and that nothing after it ran. */
describe('SvmSubmit', () => {
  let rpc: { mintDecimals: jest.Mock; isBlockhashValid: jest.Mock; simulate: jest.Mock };
  beforeEach(() => {
    rpc = {
      mintDecimals: jest.fn(async () => 6),
      isBlockhashValid: jest.fn(async () => true),
      simulate: jest.fn(async () => ({ err: null, logs: [] })),
    };
  });
  const submit = () => new SvmSubmit(rpc as unknown as SolanaRpc, feePayer);
  const refusal = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(err instanceof RpcError)) throw new Error(`expected a refusal, got ${String(err)}`);
    const info = err.status.details[0] as { reason: string; metadata?: Record<string, string> };
    return { code: err.status.code, reason: info.reason, metadata: info.metadata };
  };

  it('co-signs a good transaction and simulates exactly the co-signed bytes, every signature verified', async () => {
    const s = submit();
    const accepted = await s.accept(quote, signedBy());
    expect(accepted.owner).toBe(user.publicKey.toBase58());
    expect(accepted.feePayer).toBe(feePayer.publicKey.toBase58());
    const sent = Transaction.from(Buffer.from(accepted.txBase64, 'base64'));
    expect(sent.verifySignatures(true)).toBe(true);
    expect(Buffer.from(sent.signatures[0]!.signature!).equals(Buffer.from(base58Decode(accepted.signature)))).toBe(true);
    expect(rpc.simulate).toHaveBeenCalledWith(accepted.txBase64);
    expect(rpc.isBlockhashValid).toHaveBeenCalledWith(blockhash);
    await s.accept(quote, signedBy());
    expect(rpc.mintDecimals).toHaveBeenCalledTimes(1); // a mint's decimals are read once
  });

  it("refuses a quote whose fee payer is not this relayer's key (503), and a transaction paid by another account", async () => {
    expect(await refusal(submit().accept({ ...quote, fee_payer: Keypair.generate().publicKey.toBase58() }, signedBy()))).toMatchObject({
      code: 14,
      reason: 'FEE_PAYER_NOT_SERVED',
    });
    const other = Keypair.generate().publicKey;
    expect(await refusal(submit().accept(quote, signedBy(other)))).toMatchObject({
      code: 3,
      reason: 'WRONG_FEE_PAYER',
      metadata: { fee_payer: other.toBase58() },
    });
    expect(rpc.simulate).not.toHaveBeenCalled();
  });

  it('refuses an expired blockhash with its own reason, before simulating', async () => {
    rpc.isBlockhashValid.mockResolvedValue(false);
    expect(await refusal(submit().accept(quote, signedBy()))).toEqual({ code: 9, reason: 'BLOCKHASH_EXPIRED', metadata: { blockhash } });
    expect(rpc.simulate).not.toHaveBeenCalled();
  });

  it("refuses a failing simulation with the program's error and its log line", async () => {
    rpc.simulate.mockResolvedValue({
      err: { InstructionError: [0, { Custom: 1 }] },
      logs: [
        'Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA invoke [1]',
        'Program log: Error: insufficient funds',
        'Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA failed: custom program error: 0x1',
      ],
    });
    const r = await refusal(submit().accept(quote, signedBy()));
    expect(r).toMatchObject({ code: 9, reason: 'SIMULATION_REVERTED' });
    expect(r.metadata?.['revert_reason']).toBe(
      '{"InstructionError":[0,{"Custom":1}]}: Program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA failed: custom program error: 0x1',
    );
    rpc.simulate.mockRejectedValue(new SolanaRpcRefused('simulateTransaction: Transaction signature verification failure', -32003));
    expect(await refusal(submit().accept(quote, signedBy()))).toMatchObject({ code: 9, reason: 'SIMULATION_REVERTED' });
  });

  it('fails with a chain RPC failure (503 CHAIN_RPC_UNAVAILABLE) when the RPC does not answer, and refuses a source that is not a mint', async () => {
    rpc.isBlockhashValid.mockRejectedValue(new SolanaRpcUnavailable('isBlockhashValid: timeout'));
    // Not a refusal of the order: the RPC server answers it as any chain RPC failure.
    const failure = await submit()
      .accept(quote, signedBy())
      .catch((err: unknown) => err);
    expect(failure).not.toBeInstanceOf(RpcError);
    expect(chainRpcFailure(failure)).toEqual({ chain: 'solana', message: 'SolanaRpcUnavailable: isBlockhashValid: timeout' });
    expect(chainRpcUnavailable(chainRpcFailure(failure)!.chain).status).toMatchObject({
      code: 14,
      details: [expect.objectContaining({ reason: 'CHAIN_RPC_UNAVAILABLE' }), expect.anything()],
    });
    rpc.mintDecimals.mockResolvedValue(undefined);
    expect(await refusal(submit().accept(quote, signedBy()))).toMatchObject({ code: 9, reason: 'SIMULATION_REVERTED' });
  });
});
