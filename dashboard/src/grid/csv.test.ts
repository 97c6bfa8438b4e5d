import { describe, expect, it } from 'vitest';
import { CsvError, parseCsv } from './csv';

describe('parseCsv', () => {
  it('reads a header and records with CRLF line ends', () => {
    expect(parseCsv('name,email\r\nAda,ada@example.com\r\nBo,bo@example.com\r\n')).toEqual([
      ['name', 'email'],
      ['Ada', 'ada@example.com'],
      ['Bo', 'bo@example.com'],
    ]);
  });

  it('keeps commas, doubled quotes and line breaks inside quoted fields', () => {
    expect(parseCsv('a,b\n"x, y","say ""hi""\nthere"\n')).toEqual([
      ['a', 'b'],
      ['x, y', 'say "hi"\nthere'],
    ]);
  });

  it('keeps empty fields, drops blank lines and a byte-order mark', () => {
    expect(parseCsv('\uFEFFa,b,c\n\n1,,3\n,,\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', '', '3'],
      ['', '', ''],
    ]);
  });

  it('reads a last record without a line end and a quoted empty field', () => {
    expect(parseCsv('a\n""')).toEqual([['a'], ['']]);
  });

  it('refuses an unclosed quote and a stray quote, naming the line', () => {
    expect(() => parseCsv('a\n"open')).toThrow(CsvError);
    expect(() => parseCsv('a\n"open')).toThrow('line 2');
    expect(() => parseCsv('a\nab"c')).toThrow(/line 2: a quote inside an unquoted field/);
  });
});
