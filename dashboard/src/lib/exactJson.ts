// JSON read without losing digits. The generated API returns `decimal`
// values as JSON numbers with every digit PostgreSQL keeps
// (12345678901234567890.123456789, or 1.10 with its scale); JSON.parse
// would round them to a double. Here a number whose text a JS number would
// not give back exactly stays the string of its digits, so the dashboard
// shows and sends it as it came.

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** Calls `onNumber` for each number token outside strings and joins the result. */
function rewriteNumbers(text: string, onNumber: (token: string) => string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(text);
      if (m) {
        out += onNumber(m[0]);
        i += m[0].length;
        continue;
      }
    }
    out += ch;
    i++;
  }
  return out;
}

/** Whether a JS number prints the token back unchanged. */
export function isExactNumber(token: string): boolean {
  return String(Number(token)) === token;
}

/** JSON.parse, except numbers a JS number cannot hold exactly become strings of their digits. */
export function parseExactJson(text: string): unknown {
  return JSON.parse(rewriteNumbers(text, (token) => (isExactNumber(token) ? token : `"${token}"`)));
}

/** The JSON text indented by two spaces, every token as it was (numbers keep their digits). */
export function prettyJsonText(text: string): string {
  JSON.parse(text); // throws on a text that is not JSON
  let out = '';
  let depth = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  let i = 0;
  while (i < text.length) {
    const ch = text[i] ?? '';
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (ch === '{' || ch === '[') {
      // An empty object or array stays on one line.
      let k = i + 1;
      while (k < text.length && /\s/.test(text[k] ?? '')) k++;
      const close = ch === '{' ? '}' : ']';
      if (text[k] === close) {
        out += ch + close;
        i = k + 1;
        continue;
      }
      depth++;
      out += ch + newline();
    } else if (ch === '}' || ch === ']') {
      depth--;
      out += newline() + ch;
    } else if (ch === ',') {
      out += ',' + newline();
    } else if (ch === ':') {
      out += ': ';
    } else {
      out += ch;
    }
    i++;
  }
  return out;
}
