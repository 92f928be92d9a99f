import { type StoredQuote, RpcError } from '@xchain/contracts';
import { PERMIT2_ADDRESS, erc2612TypedData, permit2TypedData } from '@xchain/evm-gasless';
import { type Order, orderToWire, sampleOrder } from '@xchain/order-codec';
import { FakeClock } from '@xchain/service-kit';
import type { Logger } from '@xchain/telemetry';
import { type Address, type Hex, getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { RelayChain, RelayChains } from '../chain/relay-chains';
import type { StatusEvents } from '../relay/status-events';
import type { GaslessOrderRepository } from '../store/gasless-order.repository';
import type { Lanes } from '../relay/lanes';
import { SubmitService } from './submit.service';

const EXECUTOR: Address = '0x71268D7045F6fAF62bDea68CE4BaE4fE2184FB8b';
const WALLET: Address = '0x14dC79964da2C08b23698B3D3cc7Ca32193d9955';
const NONCE = 77n;

/** SubmitGaslessOrder's checks, in order, with every collaborator faked: what is refused never reaches the chain or the database. */
describe('SubmitService', () => {
  const user = privateKeyToAccount(generatePrivateKey());
  const order: Order = sampleOrder({ gasless: true, sponsorGas: 1000n, srcChainId: 8453n, expiresAt: 2_000_000_000n });
  const typed = permit2TypedData({ order, spender: EXECUTOR, nonce: NONCE, deadline: order.expiresAt });
  const stored: StoredQuote = {
    quote_hash: `0x${'12'.repeat(32)}`,
    created_at: '2026-11-23T00:00:00.000Z',
    retained_until: '2026-11-30T00:00:00.000Z',
    caller_kind: 'keyless',
    quote: {
      cross_chain: {
        quote_hash: `0x${'12'.repeat(32)}`,
        amount_in: order.amountIn.toString(),
        amount_out: '1',
        min_amount_out: '1',
        slippage_bps: 10,
        fee_breakdown: { components: [], src_total_usd_micros: '0', dst_total_usd_micros: '0', src_gas_native: '0', dst_gas_native: '0' },
        deposit_target: '0x7CCfEacBa472f31962CB515Fe4cE4477D15C4a04',
        order: orderToWire(order, []),
        expires_at: '2033-05-18T03:33:20Z',
        gasless: true,
        gasless_executor: EXECUTOR,
        permit2: JSON.parse(JSON.stringify(typed)),
      },
    },
  };

  let reads: Record<string, bigint>;
  let simulate: jest.Mock;
  let insert: jest.Mock;
  let enqueue: jest.Mock;
  const clock = new FakeClock();
  const chain = {
    name: 'base',
    chainId: async () => 8453n,
    client: {
      readContract: jest.fn(async ({ functionName }: { functionName: string }) => {
        if (functionName === 'eip712Domain')
          return ['0x0f', 'USD Coin', '2', 8453n, getAddress(`0x${order.srcToken.slice(26)}`), `0x${'0'.repeat(64)}`, []];
        return reads[functionName];
      }),
      call: (...args: unknown[]) => simulate(...args),
    },
  } as unknown as RelayChain;
  const service = (find: () => Promise<unknown> = async () => null) =>
    new SubmitService(
      { find, insert, dropUnheld: jest.fn(), setHold: jest.fn() } as unknown as GaslessOrderRepository,
      { call: async () => stored } as never,
      { byChainId: async (id: bigint) => (id === 8453n ? chain : undefined) } as unknown as RelayChains,
      { pickWallet: () => WALLET, enqueue } as unknown as Lanes,
      { publish: jest.fn() } as unknown as StatusEvents,
      { warn: jest.fn(), info: jest.fn() } as unknown as Logger,
      clock,
    );
  const body = async (over: Record<string, unknown> = {}) => ({
    quote_hash: stored.quote_hash,
    evm: {
      owner: user.address,
      permit2_nonce: NONCE.toString(),
      deadline: order.expiresAt.toString(),
      signature: await user.signTypedData(JSON.parse(JSON.stringify(typed))),
      ...over,
    },
  });
  const reasonOf = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(err instanceof RpcError)) throw new Error(`expected a refusal, got ${String(err)}`);
    return { code: err.status.code, reason: (err.status.details[0] as { reason: string }).reason };
  };

  beforeEach(() => {
    reads = { nonceBitmap: 0n, balanceOf: order.amountIn, allowance: order.amountIn, nonces: 0n };
    simulate = jest.fn(async () => ({ data: '0x' }));
    insert = jest.fn(async () => true);
    enqueue = jest.fn(async () => undefined);
    clock.set(1_900_000_000_000);
  });

  it('accepts a valid order: simulated from the lane wallet, stored, enqueued, queued', async () => {
    await expect(service().submit(await body())).resolves.toEqual({ quote_hash: stored.quote_hash, status: 'queued' });
    expect(simulate).toHaveBeenCalledWith(expect.objectContaining({ account: WALLET, to: EXECUTOR }));
    expect(insert).toHaveBeenCalledWith(
      expect.objectContaining({ owner: user.address, permit2Nonce: NONCE, wallet: WALLET, chain: 'base' }),
    );
    expect(enqueue).toHaveBeenCalledWith('base', WALLET, stored.quote_hash);
  });

  it('stays accepted when Redis does not take the job (the sweeper enqueues it later)', async () => {
    enqueue.mockRejectedValue(new Error('Redis did not take the job'));
    await expect(service().submit(await body())).resolves.toMatchObject({ status: 'queued' });
    expect(insert).toHaveBeenCalled();
  });

  it('refuses, each with its own reason and before anything is stored', async () => {
    const other = privateKeyToAccount(generatePrivateKey());
    expect(
      await reasonOf(service().submit(await body({ signature: await other.signTypedData(JSON.parse(JSON.stringify(typed))) }))),
    ).toEqual({ code: 3, reason: 'INVALID_SIGNATURE' });
    expect(await reasonOf(service().submit(await body({ deadline: '1' })))).toEqual({ code: 3, reason: 'INVALID_SIGNATURE' });
    clock.set(Number(order.expiresAt + 1n) * 1000);
    expect(await reasonOf(service().submit(await body()))).toEqual({ code: 9, reason: 'DEADLINE_PASSED' });
    clock.set(1_900_000_000_000);
    reads['nonceBitmap'] = 1n << (NONCE & 0xffn);
    expect(await reasonOf(service().submit(await body()))).toEqual({ code: 6, reason: 'PERMIT2_NONCE_USED' });
    reads['nonceBitmap'] = 0n;
    reads['balanceOf'] = order.amountIn - 1n;
    expect(await reasonOf(service().submit(await body()))).toEqual({ code: 9, reason: 'INSUFFICIENT_BALANCE' });
    reads['balanceOf'] = order.amountIn;
    reads['allowance'] = 0n;
    expect(await reasonOf(service().submit(await body()))).toEqual({ code: 9, reason: 'INSUFFICIENT_ALLOWANCE' });
    simulate.mockRejectedValue(new Error('execution reverted'));
    reads['allowance'] = order.amountIn;
    expect(await reasonOf(service().submit(await body()))).toEqual({ code: 9, reason: 'SIMULATION_REVERTED' });
    expect(await reasonOf(service().submit({ quote_hash: stored.quote_hash, svm: { tx_base64: 'AA==' } }))).toEqual({
      code: 3,
      reason: 'WRONG_VM',
    });
    expect(insert).not.toHaveBeenCalled();
    expect(enqueue).not.toHaveBeenCalled();
  });

  it('refuses a body with both evm and svm, and an owner whose mixed case is not its EIP-55 checksum, naming the field', async () => {
    const violation = async (p: Promise<unknown>) => {
      const err = await p.then(
        () => undefined,
        (e: unknown) => e,
      );
      if (!(err instanceof RpcError)) throw new Error(`expected a refusal, got ${String(err)}`);
      const bad = err.status.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.BadRequest') as
        { field_violations: { field: string }[] } | undefined;
      return { code: err.status.code, fields: bad?.field_violations.map((v) => v.field) };
    };
    expect(await violation(service().submit({ ...(await body()), svm: { tx_base64: 'AA==' } }))).toEqual({ code: 3, fields: ['svm'] });
    // Flip the case of one letter of the checksummed address: still hex, no longer its checksum.
    const at = user.address.slice(2).search(/[a-fA-F]/) + 2;
    const letter = user.address.charAt(at);
    const flipped =
      user.address.slice(0, at) +
      (letter === letter.toLowerCase() ? letter.toUpperCase() : letter.toLowerCase()) +
      user.address.slice(at + 1);
    expect(await violation(service().submit(await body({ owner: flipped })))).toEqual({ code: 3, fields: ['evm.owner'] });
    expect(insert).not.toHaveBeenCalled();
    // EIP-55 constrains mixed case only: the same owner all lower or all upper is the owner.
    await expect(service().submit(await body({ owner: user.address.toLowerCase() }))).resolves.toMatchObject({ status: 'queued' });
    await expect(service().submit(await body({ owner: `0x${user.address.slice(2).toUpperCase()}` }))).resolves.toMatchObject({
      status: 'queued',
    });
  });

  it('answers the winning order, not a refusal, when a concurrent submission of the quote moved the chain first', async () => {
    // The first look finds nothing; by the time the checks run, the other submission's transaction used the nonce.
    const winner = {
      quoteHash: stored.quote_hash,
      tx: {
        vm: 'evm',
        status: 'submitted',
        txs: [{ txHash: `0x${'ab'.repeat(32)}` }],
        attempts: 1,
        minedTxHash: null,
        svmSignature: null,
        error: null,
      },
    };
    let looks = 0;
    const find = async () => (looks++ === 0 ? null : winner);
    reads['nonceBitmap'] = 1n << (NONCE & 0xffn);
    await expect(service(find).submit(await body())).resolves.toEqual({
      quote_hash: stored.quote_hash,
      status: 'submitted',
      tx_hash: `0x${'ab'.repeat(32)}`,
    });
    expect(insert).not.toHaveBeenCalled();
    // Without a winner the same refusal stands.
    expect(await reasonOf(service().submit(await body()))).toEqual({ code: 6, reason: 'PERMIT2_NONCE_USED' });
  });

  it("takes the EIP-2612 permit into account when the Permit2 allowance is short, and checks it is the owner's", async () => {
    reads['allowance'] = 0n;
    const permit = erc2612TypedData({
      chainId: 8453n,
      token: getAddress(`0x${order.srcToken.slice(26)}`),
      name: 'USD Coin',
      version: '2',
      owner: user.address,
      nonce: 0n,
      deadline: order.expiresAt,
    });
    expect(permit.message.spender).toBe(PERMIT2_ADDRESS);
    const good = (await user.signTypedData(JSON.parse(JSON.stringify(permit)))) as Hex;
    await expect(service().submit(await body({ permit_signature: good }))).resolves.toMatchObject({ status: 'queued' });
    const forged = (await privateKeyToAccount(generatePrivateKey()).signTypedData(JSON.parse(JSON.stringify(permit)))) as Hex;
    expect(await reasonOf(service().submit(await body({ permit_signature: forged })))).toEqual({
      code: 3,
      reason: 'INVALID_PERMIT_SIGNATURE',
    });
  });
});
