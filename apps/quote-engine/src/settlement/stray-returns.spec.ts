import type { OperatorTxView } from '@xchain/contracts';
import { RpcClient } from '@xchain/messaging';
import { Prisma, type StrayDeposit } from '@xchain/quote-engine-db';
import { LOGGER } from '@xchain/service-kit';
import { newTestService } from '@xchain/service-kit/testing';
import { strayReturnKey } from '@xchain/svm-orders';
import { SETTLEMENT_CONFIG } from './settler';
import { StrayDepositRepository } from './stray-deposits.repository';
import { StrayReturns } from './stray-returns';

const SIGNATURE = '2'.repeat(88);
const SENDER = 'Fh4uHmtBNbtYwWk5gCvMCkjTsGyH5TLnh6M6x1ZU2Qq8';

function stray(over: Partial<StrayDeposit> = {}): StrayDeposit {
  return {
    chain: 'solana',
    signature: SIGNATURE,
    memoIndex: 1,
    quoteHash: `0x${'ab'.repeat(32)}`,
    sender: SENDER,
    mint: 'SOL',
    amount: new Prisma.Decimal('1999999'),
    reason: 'WRONG_AMOUNT',
    detail: 'moved 1999999',
    slot: 11n,
    blockTime: new Date(0),
    state: 'open',
    error: null,
    returnTx: null,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    ...over,
  };
}

/** A returner over one open row and a relayer that answers `status` (or fails). */
function setUp(answer: () => Promise<Partial<OperatorTxView>>) {
  const rows = [stray()];
  const asked: unknown[] = [];
  const closed: unknown[] = [];
  const logged: { level: string; msg: string }[] = [];
  const log = (level: string) => (_o: unknown, msg: string) => void logged.push({ level, msg });
  const t = newTestService(StrayReturns, [
    { provide: SETTLEMENT_CONFIG, useValue: { enabled: true, pollMs: 60_000, requestTimeoutMs: 1000 } },
    { provide: LOGGER, useValue: { info: log('info'), warn: log('warn'), error: log('error') } },
  ]);
  const repo = t.mock(StrayDepositRepository);
  repo.open.mockImplementation(async () => rows.filter((r) => r.state === 'open'));
  repo.close.mockImplementation(async (_k, outcome) => {
    closed.push(outcome);
    rows[0]!.state = outcome.state;
    return true;
  });
  t.mock(RpcClient).call.mockImplementation(
    (async (_c: unknown, req: unknown) => (
      asked.push(req),
      { kind: 'return', chain: 'solana', wallet: 'w', tx_hashes: [], ...(await answer()) }
    )) as never,
  );
  return { returns: t.sut, asked, closed, logged };
}

describe('StrayReturns', () => {
  it('asks the relayer for a return keyed by the deposit, to the sender, of exactly the amount; confirmed → returned, and asks no more', async () => {
    let status: OperatorTxView['status'] = 'submitted';
    const { returns, asked, closed, logged } = setUp(async () => ({ status, tx_hash: 'ret' }));
    await returns.pass();
    expect(asked).toEqual([
      {
        kind: 'return',
        quote_hash: strayReturnKey('solana', SIGNATURE, 1),
        chain: 'solana',
        call: { vm: 'svm', return: { deposit_signature: SIGNATURE, deposit_index: 1, to: SENDER, mint: 'SOL', amount: '1999999' } },
      },
    ]);
    expect(closed).toEqual([]); // still on its way: open, asked again next pass
    status = 'confirmed';
    await returns.pass();
    await returns.pass();
    expect(asked).toHaveLength(2);
    expect(closed).toEqual([{ state: 'returned', returnTx: 'ret' }]);
    expect(logged).toEqual([{ level: 'info', msg: 'stray deposit returned to its sender' }]);
  });

  it('a return that landed with an error is stuck with it, logged at error; a relayer that does not answer leaves the row open', async () => {
    let fail = true;
    const { returns, closed, logged } = setUp(async () => {
      if (fail) throw new Error('request timed out');
      return { status: 'failed', error: 'TX_REVERTED: insufficient funds' };
    });
    await returns.pass();
    await returns.pass();
    expect(closed).toEqual([]);
    expect(logged).toEqual([{ level: 'warn', msg: 'stray deposit return not sent this pass; retried' }]); // once, not each pass
    fail = false;
    await returns.pass();
    expect(closed).toEqual([{ state: 'stuck', error: 'return: TX_REVERTED: insufficient funds' }]);
    expect(logged.at(-1)).toEqual({ level: 'error', msg: 'stray deposit return failed; an operator must look' });
  });
});
