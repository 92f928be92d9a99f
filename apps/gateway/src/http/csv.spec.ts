import { parseCsv } from '@xchain/stack';
import { csvCell, csvLine } from './csv';

describe('CSV cells', () => {
  it('leaves plain values, amounts and hashes as they are', () => {
    expect(csvLine(['0xabc', '115792089237316195423570985008687907853269984665640564039457584007913129639935', 'fulfilled', ''])).toBe(
      '0xabc,115792089237316195423570985008687907853269984665640564039457584007913129639935,fulfilled,\r\n',
    );
  });

  it('quotes commas, quotes and line breaks, and reads back the same', () => {
    const cells = ['a,b', 'say "hi"', 'two\r\nlines', 'x;y:z'];
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(parseCsv(csvLine(cells))).toEqual([cells]);
  });

  it('keeps a formula a formula no longer: =, +, -, @, tab and CR get a leading quote', () => {
    for (const evil of ['=HYPERLINK("http://x","y")', '+1+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1']) {
      const [[read]] = parseCsv(csvLine([evil])) as [[string]];
      expect(read).toBe(`'${evil}`);
      expect(read.startsWith("'")).toBe(true);
    }
    expect(csvCell('=1,2')).toBe(`"'=1,2"`);
  });
});
