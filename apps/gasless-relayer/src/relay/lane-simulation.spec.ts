import { type Address, type Hex, MethodNotFoundRpcError, type PublicClient, encodeAbiParameters } from 'viem';
import { simulateInOrder } from './lane-simulation';

const WALLET: Address = '0x1111111111111111111111111111111111111111';
const TO: Address = '0x2222222222222222222222222222222222222222';
const call = (i: number) => ({ to: TO, data: `0x${i.toString(16).padStart(8, '0')}` as Hex, value: BigInt(i) });
const errorString = (reason: string): Hex => `0x08c379a0${encodeAbiParameters([{ type: 'string' }], [reason]).slice(2)}`;

/** A node whose eth_simulateV1 answers every call with `answer(index)`, recording what it was asked. */
function node(answer: (i: number) => object) {
  const asked: any[] = [];
  const client = {
    request: jest.fn(async ({ params }: { params: any[] }) => {
      asked.push(params);
      let i = 0;
      return params[0].blockStateCalls.map((b: { calls: unknown[] }) => ({ calls: b.calls.map(() => answer(i++)) }));
    }),
  } as unknown as PublicClient;
  return { client, asked };
}

describe('simulateInOrder', () => {
  it('runs the calls in flight first, then the batch, from the wallet on the given block, and judges only the batch', async () => {
    const { client, asked } = node((i) =>
      i === 3
        ? { status: '0x0', gasUsed: '0x5208', returnData: errorString('TRANSFER_FROM_FAILED') }
        : { status: '0x1', gasUsed: '0x30d40' },
    );
    const out = await simulateInOrder(client, WALLET, 0x99n, [call(1), call(2)], [call(3), call(4), call(5)]);
    expect(out).toEqual([
      { ok: true, gasUsed: 200_000n },
      { ok: false, reason: 'Error(TRANSFER_FROM_FAILED)' },
      { ok: true, gasUsed: 200_000n },
    ]);
    const [request, block] = asked[0];
    expect(block).toBe('0x99');
    expect(request.validation).toBe(false);
    expect(request.blockStateCalls.flatMap((b: { calls: unknown[] }) => b.calls)).toEqual(
      [1, 2, 3, 4, 5].map((i) => ({ from: WALLET, to: TO, data: call(i).data, value: `0x${i.toString(16)}` })),
    );
  });

  it('spreads a long queue over several simulated blocks, in order', async () => {
    const { client, asked } = node(() => ({ status: '0x1', gasUsed: '0x1' }));
    const calls = Array.from({ length: 20 }, (_, i) => call(i));
    expect(await simulateInOrder(client, WALLET, 1n, calls.slice(0, 5), calls.slice(5))).toHaveLength(15);
    const blocks = asked[0][0].blockStateCalls as { calls: { data: Hex }[] }[];
    expect(blocks.map((b) => b.calls.length)).toEqual([8, 8, 4]);
    expect(blocks.flatMap((b) => b.calls.map((c) => c.data))).toEqual(calls.map((c) => c.data));
  });

  it("says 'unsupported' when the node has no eth_simulateV1, and throws any other failure", async () => {
    const missing = {
      request: jest.fn().mockRejectedValue(new MethodNotFoundRpcError(new Error('the method eth_simulateV1 does not exist'))),
    } as unknown as PublicClient;
    expect(await simulateInOrder(missing, WALLET, 1n, [], [call(1)])).toBe('unsupported');
    const down = { request: jest.fn().mockRejectedValue(new Error('fetch failed')) } as unknown as PublicClient;
    await expect(simulateInOrder(down, WALLET, 1n, [], [call(1)])).rejects.toThrow('fetch failed');
  });
});
