import { type StoredQuote, RpcError } from '@xchain/contracts';
import { orderToWire, sampleOrder, toBytes32 } from '@xchain/order-codec';
import type { Logger } from '@xchain/telemetry';
import type { RelayChains } from '../chain/relay-chains';
import type { StatusEvents } from '../relay/status-events';
import type { GaslessOrderRepository } from '../store/gasless-order.repository';
import type { Lanes } from '../relay/lanes';
import { SubmitService } from '../submit/submit.service';
import type { SvmSubmit } from './svm-submit';

const HASH = `0x${'34'.repeat(32)}`;
const FEE_PAYER = 'zPToh8sEaHBD2Tnxcjf2W5pWhU57QBEj4uynetC564j';
const USER = '9oYJrz36faTDZJ2JTt2QoCD4eeUhJdqMzNysu4Rb2nR7';
const order = sampleOrder({
  srcChainId: 792703809n,
  srcToken: toBytes32('svm', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'),
  refundAddress: toBytes32('svm', USER),
  gasless: true,
});
const stored: StoredQuote = {
  quote_hash: HASH,
  created_at: '2026-11-23T00:00:00.000Z',
  retained_until: '2026-11-30T00:00:00.000Z',
  caller_kind: 'keyless',
  quote: {
    cross_chain: {
      quote_hash: HASH,
      amount_in: order.amountIn.toString(),
      amount_out: '1',
      min_amount_out: '1',
      slippage_bps: 10,
      fee_breakdown: { components: [], src_total_usd_micros: '0', dst_total_usd_micros: '0', src_gas_native: '0', dst_gas_native: '0' },
      deposit_target: 'ASWgJqYMFCL2iGNKV2TMFCJpH42NzDDpF8bYXkwDwnPX',
      order: orderToWire(order, []),
      expires_at: '2033-05-18T03:33:20Z',
      gasless: true,
      fee_payer: FEE_PAYER,
    },
  },
};

/** SubmitGaslessOrder's Solana branch: what is stored, queued and woken, and what a second submission gets. */
describe('SubmitService for a Solana source', () => {
  let existing: unknown;
  let insertSvm: jest.Mock;
  let accept: jest.Mock;
  let wake: jest.Mock;
  let publish: jest.Mock;
  const accepted = { owner: USER, feePayer: FEE_PAYER, txBase64: 'c2lnbmVk', signature: '5sig' };

  beforeEach(() => {
    existing = null;
    insertSvm = jest.fn(async () => true);
    accept = jest.fn(async () => accepted);
    wake = jest.fn();
    publish = jest.fn();
  });
  const service = (svm = true) =>
    new SubmitService(
      { find: async () => existing, insertSvm } as unknown as GaslessOrderRepository,
      { call: async () => stored } as never,
      {} as RelayChains,
      {} as Lanes,
      { publish } as unknown as StatusEvents,
      { warn: jest.fn() } as unknown as Logger,
      undefined,
      svm ? ({ accept } as unknown as SvmSubmit) : undefined,
      svm ? { wake } : undefined,
    );
  const body = { quote_hash: HASH, svm: { tx_base64: 'dXNlcg==' } };

  it('stores the co-signed transaction, publishes queued and wakes the relay', async () => {
    await expect(service().submit(body)).resolves.toEqual({ quote_hash: HASH, status: 'queued' });
    expect(accept).toHaveBeenCalledWith('cross_chain' in stored.quote ? stored.quote.cross_chain : undefined, 'dXNlcg==');
    expect(insertSvm).toHaveBeenCalledWith({
      quoteHash: HASH,
      chain: 'solana',
      owner: USER,
      feePayer: FEE_PAYER,
      txBase64: 'c2lnbmVk',
      signature: '5sig',
    });
    expect(publish).toHaveBeenCalledWith('solana', { quote_hash: HASH, status: 'queued', tx_hashes: [] });
    expect(wake).toHaveBeenCalledWith(HASH);
  });

  it('answers the first order when another submission of the quote won the insert, and wakes nothing', async () => {
    insertSvm.mockImplementation(async () => {
      existing = {
        quoteHash: HASH,
        tx: { vm: 'svm', status: 'submitted', attempts: 1, svmSignature: '5first', svmExpiredSigs: [], txs: [] },
      };
      return false;
    });
    await expect(service().submit(body)).resolves.toEqual({ quote_hash: HASH, status: 'submitted', tx_hash: '5first' });
    expect(wake).not.toHaveBeenCalled();
  });

  it("answers an existing order's state without checking or sending anything", async () => {
    existing = {
      quoteHash: HASH,
      tx: { vm: 'svm', status: 'confirmed', attempts: 1, svmSignature: '5first', svmExpiredSigs: [], minedTxHash: '5first', txs: [] },
    };
    await expect(service().submit(body)).resolves.toEqual({ quote_hash: HASH, status: 'confirmed', tx_hash: '5first' });
    expect(accept).not.toHaveBeenCalled();
    expect(insertSvm).not.toHaveBeenCalled();
  });

  it('refuses 503 CHAIN_NOT_RELAYED without a Solana RPC and fee payer key, and WRONG_VM for an evm body', async () => {
    const err = await service(false)
      .submit(body)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).status).toMatchObject({
      code: 14,
      details: [expect.objectContaining({ reason: 'CHAIN_NOT_RELAYED' }), expect.anything()],
    });
    const vm = await service()
      .submit({ quote_hash: HASH, evm: { owner: '0x', permit2_nonce: '0', deadline: '0', signature: '0x' } })
      .catch((e: unknown) => e);
    expect((vm as RpcError).status.details[0]).toMatchObject({ reason: 'WRONG_VM' });
    expect(insertSvm).not.toHaveBeenCalled();
  });
});
