// A string that matches a column's `pattern` (Go RE2 syntax, matched
// unanchored like Go's MatchString), so the Test console's example passes
// the server's check. The generator covers the regex shapes people write
// for codes and identifiers (literals, classes, groups, alternation,
// quantifiers, anchors); every candidate is checked with the browser's own
// RegExp before it is offered, and a pattern we cannot serve gives
// undefined, so the caller asks the user instead of sending a wrong value.

type Node =
  | { kind: 'literal'; char: string }
  | { kind: 'set'; matches: (char: string) => boolean }
  | { kind: 'sequence'; items: Node[] }
  | { kind: 'alternation'; options: Node[] }
  | { kind: 'repeat'; node: Node; min: number; max: number }
  | { kind: 'empty' };

/** The pattern cannot be generated from (syntax beyond the subset). */
class Unsupported extends Error {}

// Characters a class is served from, nicest first: letters and digits
// keep examples readable and survive the server's markup stripping.
const CANDIDATES = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  ...'-_. @:/+=,;!?*()[]{}#$%^|~\'"`\\\t',
  'é',
  'ß',
  'Ж',
];

const isDigit = (c: string) => c >= '0' && c <= '9';
const isWord = (c: string) => /^[A-Za-z0-9_]$/.test(c);
const isSpace = (c: string) => /^[\t\n\f\r\v ]$/.test(c);

const POSIX: Record<string, (c: string) => boolean> = {
  alpha: (c) => /^[A-Za-z]$/.test(c),
  digit: isDigit,
  alnum: (c) => /^[A-Za-z0-9]$/.test(c),
  upper: (c) => /^[A-Z]$/.test(c),
  lower: (c) => /^[a-z]$/.test(c),
  space: isSpace,
  word: isWord,
  xdigit: (c) => /^[0-9A-Fa-f]$/.test(c),
  punct: (c) => /^[!-/:-@[-`{-~]$/.test(c),
  blank: (c) => c === ' ' || c === '\t',
};

// Unicode classes by their one-letter or short name, as far as our
// candidate characters go.
const UNICODE: Record<string, (c: string) => boolean> = {
  L: (c) => /^\p{L}$/u.test(c),
  Lu: (c) => /^\p{Lu}$/u.test(c),
  Ll: (c) => /^\p{Ll}$/u.test(c),
  N: (c) => /^\p{N}$/u.test(c),
  Nd: (c) => /^\p{Nd}$/u.test(c),
  P: (c) => /^\p{P}$/u.test(c),
  Z: (c) => c === ' ',
  Zs: (c) => c === ' ',
};

class Parser {
  private at = 0;
  constructor(private readonly text: string) {}

  parse(): Node {
    const node = this.alternation();
    if (this.at < this.text.length) throw new Unsupported(`unexpected ${this.text[this.at]}`);
    return node;
  }

  private peek(): string | undefined {
    return this.text[this.at];
  }

  private next(): string {
    const c = this.text[this.at++];
    if (c === undefined) throw new Unsupported('unexpected end');
    return c;
  }

  private alternation(): Node {
    const options = [this.sequence()];
    while (this.peek() === '|') {
      this.at++;
      options.push(this.sequence());
    }
    return options.length === 1 ? options[0]! : { kind: 'alternation', options };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.at < this.text.length && this.peek() !== '|' && this.peek() !== ')') {
      items.push(this.quantified(this.atom()));
    }
    return { kind: 'sequence', items };
  }

  private quantified(node: Node): Node {
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === '*') [min, max] = [0, Infinity];
      else if (c === '+') [min, max] = [1, Infinity];
      else if (c === '?') [min, max] = [0, 1];
      else if (c === '{' && /^\{\d+(,\d*)?\}/.test(this.text.slice(this.at))) {
        const match = /^\{(\d+)(,(\d*))?\}/.exec(this.text.slice(this.at))!;
        min = Number(match[1]);
        max = match[2] === undefined ? min : match[3] === '' ? Infinity : Number(match[3]);
        this.at += match[0].length - 1;
      } else return node;
      this.at++;
      if (this.peek() === '?') this.at++; // lazy: same strings
      node = { kind: 'repeat', node, min, max };
    }
  }

  private atom(): Node {
    const c = this.next();
    switch (c) {
      case '^':
      case '$':
        return { kind: 'empty' };
      case '.':
        return { kind: 'set', matches: (ch) => ch !== '\n' };
      case '[':
        return this.charClass();
      case '(':
        return this.group();
      case '\\':
        return this.escape(false);
      case '*':
      case '+':
      case '?':
        throw new Unsupported('nothing to repeat');
      default:
        return { kind: 'literal', char: c };
    }
  }

  private group(): Node {
    if (this.peek() === '?') {
      this.at++;
      const rest = this.text.slice(this.at);
      const named = /^(P?<[A-Za-z_][A-Za-z0-9_]*>)/.exec(rest);
      if (named) this.at += named[1]!.length;
      else if (rest.startsWith(':')) this.at++;
      else {
        // Flags: (?i) alone or (?i:...); case folding does not change what
        // we generate, and the check below runs with the same flags.
        const flags = /^([imsU-]+)(:|\))/.exec(rest);
        if (!flags) throw new Unsupported('group syntax');
        this.at += flags[1]!.length + 1;
        if (flags[2] === ')') return { kind: 'empty' };
      }
    }
    const inner = this.alternation();
    if (this.next() !== ')') throw new Unsupported('unclosed group');
    return inner;
  }

  private escape(inClass: boolean): Node {
    const c = this.next();
    switch (c) {
      case 'd':
        return { kind: 'set', matches: isDigit };
      case 'D':
        return { kind: 'set', matches: (ch) => !isDigit(ch) };
      case 'w':
        return { kind: 'set', matches: isWord };
      case 'W':
        return { kind: 'set', matches: (ch) => !isWord(ch) };
      case 's':
        return { kind: 'set', matches: isSpace };
      case 'S':
        return { kind: 'set', matches: (ch) => !isSpace(ch) };
      case 't':
        return { kind: 'literal', char: '\t' };
      case 'n':
        return { kind: 'literal', char: '\n' };
      case 'r':
        return { kind: 'literal', char: '\r' };
      case 'f':
        return { kind: 'literal', char: '\f' };
      case 'v':
        return { kind: 'literal', char: '\v' };
      case 'p':
      case 'P': {
        const name = this.peek() === '{' ? /^\{(\^?)([A-Za-z]+)\}/.exec(this.text.slice(this.at)) : null;
        const key = name ? name[2]! : this.next();
        if (name) this.at += name[0].length;
        const test = UNICODE[key];
        if (!test) throw new Unsupported(`unicode class ${key}`);
        const negate = (c === 'P') !== Boolean(name?.[1]);
        return { kind: 'set', matches: negate ? (ch) => !test(ch) : test };
      }
      case 'x': {
        const hex = /^(\{([0-9A-Fa-f]{1,6})\}|([0-9A-Fa-f]{2}))/.exec(this.text.slice(this.at));
        if (!hex) throw new Unsupported('hex escape');
        this.at += hex[0].length;
        return { kind: 'literal', char: String.fromCodePoint(parseInt(hex[2] ?? hex[3]!, 16)) };
      }
      case 'A':
      case 'z':
      case 'b':
      case 'B':
        if (inClass) throw new Unsupported(`\\${c} in a class`);
        return { kind: 'empty' };
      case 'Q': {
        const end = this.text.indexOf('\\E', this.at);
        const quoted = this.text.slice(this.at, end < 0 ? undefined : end);
        this.at = end < 0 ? this.text.length : end + 2;
        return { kind: 'sequence', items: [...quoted].map((ch) => ({ kind: 'literal', char: ch }) as Node) };
      }
      default:
        if (/[A-Za-z0-9]/.test(c)) throw new Unsupported(`escape \\${c}`);
        return { kind: 'literal', char: c };
    }
  }

  private charClass(): Node {
    const negate = this.peek() === '^';
    if (negate) this.at++;
    const parts: ((ch: string) => boolean)[] = [];
    let first = true;
    while (first || this.peek() !== ']') {
      first = false;
      const posix = /^\[:(\^?)([a-z]+):\]/.exec(this.text.slice(this.at));
      if (posix) {
        const test = POSIX[posix[2]!];
        if (!test) throw new Unsupported(`class [:${posix[2]}:]`);
        this.at += posix[0].length;
        parts.push(posix[1] ? (ch) => !test(ch) : test);
        continue;
      }
      const low = this.classChar();
      if (typeof low !== 'string') {
        parts.push(low);
        continue;
      }
      if (this.peek() === '-' && this.text[this.at + 1] !== ']' && this.text[this.at + 1] !== undefined) {
        this.at++;
        const high = this.classChar();
        if (typeof high !== 'string') throw new Unsupported('range to a class');
        parts.push((ch) => ch >= low && ch <= high);
      } else parts.push((ch) => ch === low);
    }
    this.at++;
    const inSet = (ch: string) => parts.some((p) => p(ch));
    return { kind: 'set', matches: negate ? (ch) => !inSet(ch) && ch !== '\n' : inSet };
  }

  /** One character of a class, or a class escape (`\d`) as a test. */
  private classChar(): string | ((ch: string) => boolean) {
    const c = this.next();
    if (c !== '\\') return c;
    const node = this.escape(true);
    if (node.kind === 'literal') return node.char;
    if (node.kind === 'set') return node.matches;
    throw new Unsupported('escape in a class');
  }
}

/** Picks among the choices a node offers: the first, or by a seeded sequence for variety. */
type Chooser = (count: number) => number;

function generate(node: Node, extra: number, choose: Chooser): string {
  switch (node.kind) {
    case 'empty':
      return '';
    case 'literal':
      return node.char;
    case 'set': {
      const matching = CANDIDATES.filter(node.matches);
      if (matching.length === 0) throw new Unsupported('a class none of our characters match');
      return matching[choose(matching.length)]!;
    }
    case 'sequence':
      return node.items.map((item) => generate(item, extra, choose)).join('');
    case 'alternation':
      return generate(node.options[choose(node.options.length)]!, extra, choose);
    case 'repeat': {
      const count = Math.min(node.max, node.min + extra);
      let out = '';
      for (let i = 0; i < count; i++) out += generate(node.node, extra, choose);
      return out;
    }
  }
}

/** A small seeded generator (mulberry32): the same seed gives the same example. */
function seededChooser(seed: number): Chooser {
  if (seed === 0) return () => 0;
  let state = seed >>> 0;
  return (count) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % count) >>> 0;
  };
}

/** The pattern as the browser's RegExp, to check candidates; undefined when it cannot say. */
export function browserRegExp(pattern: string): RegExp | undefined {
  let source = pattern;
  let flags = 'u';
  const leading = /^\(\?([ims]+)\)/.exec(source);
  if (leading) {
    source = source.slice(leading[0].length);
    flags += leading[1]!;
  }
  source = source
    .replace(/\\Q(.*?)(\\E|$)/g, (_all, quoted: string) => quoted.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&'))
    .replace(/\(\?P</g, '(?<')
    .replace(/\\A/g, '^')
    .replace(/\\z/g, '$')
    .replace(/\\p([A-Z])/g, '\\p{$1}')
    .replace(/\\P([A-Z])/g, '\\P{$1}')
    .replace(/\[:alpha:\]/g, 'A-Za-z')
    .replace(/\[:digit:\]/g, '0-9')
    .replace(/\[:alnum:\]/g, 'A-Za-z0-9')
    .replace(/\[:upper:\]/g, 'A-Z')
    .replace(/\[:lower:\]/g, 'a-z')
    .replace(/\[:space:\]/g, '\\s')
    .replace(/\[:word:\]/g, '\\w')
    .replace(/\[:xdigit:\]/g, '0-9A-Fa-f');
  try {
    return new RegExp(source, flags);
  } catch {
    return undefined;
  }
}

export interface PatternOptions {
  minLength?: number;
  maxLength?: number;
  /** 0 for the plainest match; another number for a different one (unique columns). */
  seed?: number;
  /** Any further check the value must pass (an e-mail's shape). */
  accept?: (value: string) => boolean;
  /**
   * Text that may go before and after the match, for an unanchored
   * pattern inside a shape (`@acme\.org$` in an e-mail: `user` before it).
   */
  around?: { before: string; after: string };
}

const STRETCHES = [0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64];

/**
 * A string matching pattern within the lengths, or undefined when the
 * pattern is beyond what we generate or no candidate satisfies everything.
 */
export function stringMatching(pattern: string, options: PatternOptions = {}): string | undefined {
  const check = browserRegExp(pattern);
  if (!check) return undefined;
  let tree: Node;
  try {
    tree = new Parser(pattern).parse();
  } catch {
    return undefined;
  }
  const min = options.minLength ?? 0;
  const max = options.maxLength ?? Infinity;
  const fits = (s: string) => {
    const length = [...s].length;
    return length >= min && length <= max && check.test(s) && (options.accept?.(s) ?? true);
  };
  // Several seeds: a later alternative may be the one that fits.
  const seeds = [options.seed ?? 0, ...[1, 2, 3, 4, 5].map((n) => (options.seed ?? 0) * 31 + n)];
  for (const seed of seeds) {
    for (const extra of STRETCHES) {
      let candidate: string;
      try {
        candidate = generate(tree, extra, seededChooser(seed));
      } catch {
        return undefined;
      }
      const { before, after } = options.around ?? { before: '', after: '' };
      for (const whole of new Set([candidate, before + candidate, candidate + after, before + candidate + after])) {
        if (fits(whole)) return whole;
        // Unanchored patterns match inside a longer string: pad to min_length.
        const short = min - [...whole].length;
        if (short > 0) {
          if (fits(whole + 'x'.repeat(short))) return whole + 'x'.repeat(short);
          if (fits('x'.repeat(short) + whole)) return 'x'.repeat(short) + whole;
        }
      }
      if ([...candidate].length > max) break; // stretching only makes it longer
    }
  }
  return undefined;
}
