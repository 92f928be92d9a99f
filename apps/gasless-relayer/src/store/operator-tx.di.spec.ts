import { Test } from '@nestjs/testing';
import { DB } from '../db.providers';
import { FillTxRepository, MintTxRepository, OPERATOR_TX_REPOSITORIES, OperatorTxTables } from './operator-tx.repository';

/** Each kind's repository is bound by Nest with the relayer's database client (inherited from the base's constructor). */
describe('operator transaction repositories under Nest', () => {
  it('are built with the database client and found by kind', async () => {
    const db = { marker: 'the relayer database' };
    const mod = await Test.createTestingModule({ providers: [{ provide: DB, useValue: db }, ...OPERATOR_TX_REPOSITORIES] }).compile();
    const fills = mod.get(FillTxRepository);
    expect(Reflect.get(fills, 'db')).toBe(db);
    expect(mod.get(OperatorTxTables).of('mint')).toBe(mod.get(MintTxRepository));
    expect(fills.laneId('0xab')).toBe('fill-0xab');
  });
});
