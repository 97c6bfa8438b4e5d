import { describe, expect, it } from 'vitest';
import { isExactNumber, parseExactJson, prettyJsonText } from './exactJson';

describe('parseExactJson', () => {
  it('keeps a decimal with more digits than a double holds as its digits', () => {
    const body = parseExactJson('{"data":{"id":1,"price":12345678901234567890.123456789,"qty":3,"rate":0.5}}');
    expect(body).toEqual({ data: { id: 1, price: '12345678901234567890.123456789', qty: 3, rate: 0.5 } });
  });

  it('keeps a decimal scale (1.10) and a big integer exactly', () => {
    expect(parseExactJson('[1.10, 9007199254740993, -0.25, 1e+21]')).toEqual(['1.10', '9007199254740993', -0.25, 1e21]);
  });

  it('leaves digits inside strings, escaped quotes included, alone', () => {
    expect(parseExactJson('{"note":"costs 1.10 \\"or\\" 12345678901234567890.1","n":2}')).toEqual({
      note: 'costs 1.10 "or" 12345678901234567890.1',
      n: 2,
    });
  });

  it('throws on text that is not JSON, as JSON.parse does', () => {
    expect(() => parseExactJson('{"a":')).toThrow();
  });

  it('knows which numbers a JS number prints back', () => {
    expect(isExactNumber('9.99')).toBe(true);
    expect(isExactNumber('12345678901234567890.123456789')).toBe(false);
  });
});

describe('prettyJsonText', () => {
  it('indents without touching numbers', () => {
    expect(prettyJsonText('{"data":{"price":12345678901234567890.123456789,"tags":[],"o":{}},"ok":[1,2]}')).toBe(
      '{\n  "data": {\n    "price": 12345678901234567890.123456789,\n    "tags": [],\n    "o": {}\n  },\n  "ok": [\n    1,\n    2\n  ]\n}',
    );
  });

  it('keeps strings with braces, commas and escapes', () => {
    expect(prettyJsonText('{"s":"a, {b}: [c] \\"d\\""}')).toBe('{\n  "s": "a, {b}: [c] \\"d\\""\n}');
  });
});
