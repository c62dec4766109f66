// A small JavaScript tokenizer and the code-shape rules the open endpoint's gate applies to its
// tokens. Pure and linear. Why tokens: docs/decisions/0008-open-endpoint.md.

export type TokenKind = 'id' | 'num' | 'str' | 'tpl' | 're' | 'p';

export interface Token {
  kind: TokenKind;
  /** identifier name, punctuator, number text, or the contents of a string / template */
  v: string;
  /** whitespace, a comment or a line break came before it */
  ws: boolean;
  /** a template with a `${` substitution */
  sub?: boolean;
}

const PUNCTUATORS = ['>>>=', '...', '===', '!==', '**=', '<<=', '>>=', '>>>', '=>', '?.', '??', '&&', '||', '==', '!=', '<=', '>=', '++', '--',
  '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '**', '<<', '>>'];
const ID_START = /[a-z_$\u0080-\uffff]/i;
const ID_PART = /[\w$\u0080-\uffff]/;
const DIGIT = /\d/;
/** After these a `/` divides; elsewhere it starts a regular expression. */
const VALUE_END = new Set([')', ']', '}']);
const KEYWORD_BEFORE_EXPRESSION = new Set(['return', 'typeof', 'void', 'delete', 'in', 'of', 'new', 'case', 'do', 'else', 'yield', 'await', 'instanceof']);

// Linear: every loop advances, bracket matching is one stack pass, rules look a bounded number
// of tokens ahead. Strings are tokens too, so `self["eval"](...)` shows the name, and their
// contents are checked again (code hidden in a string literal). The input is already
// de-obfuscated by the gate (escapes, entities, URL encoding, NFKC, invisible characters) and
// lower-cased, so `EVAL(` and `Function(` are caught as well.
/**
 * A quoted string or regular expression is looked for at most this far: past it the quote or
 * slash is a punctuator and the text after it stays visible. Without the bound, text like
 * "(/[(/[(/[..." made every slash scan to the end of the line: quadratic (6,000 characters took
 * 33 ms, 24,000 took 281 ms).
 */
export const MAX_LITERAL = 256;

/** Counts the characters the literal scans examined (a test seam for the bound above). */
export interface ScanStats {
  literalChars: number;
}

export function tokenize(s: string, maxTokens = 20_000, stats?: ScanStats): Token[] {
  const out: Token[] = [];
  let i = 0;
  let ws = false;
  const n = s.length;
  while (i < n && out.length < maxTokens) {
    const c = s[i]!;
    if (/\s/.test(c)) {
      ws = true;
      i++;
      continue;
    }
    if (c === '/' && s[i + 1] === '/') {
      const end = s.indexOf('\n', i);
      i = end < 0 ? n : end;
      ws = true;
      continue;
    }
    if (c === '/' && s[i + 1] === '*') {
      const end = s.indexOf('*/', i + 2);
      i = end < 0 ? n : end + 2;
      ws = true;
      continue;
    }
    const start = i;
    // `$5` is an identifier to JavaScript but money in prose ("Cost => $5 (est.)"): read as `$` 5
    if (ID_START.test(c) && !(c === '$' && DIGIT.test(s[i + 1] ?? ''))) {
      while (i < n && ID_PART.test(s[i]!)) i++;
      out.push({ kind: 'id', v: s.slice(start, i), ws });
    } else if (DIGIT.test(c) || (c === '.' && DIGIT.test(s[i + 1] ?? ''))) {
      while (i < n && (/[\w.]/.test(s[i]!) || ((s[i] === '+' || s[i] === '-') && /e/i.test(s[i - 1]!)))) i++;
      out.push({ kind: 'num', v: s.slice(start, i), ws });
    } else if (c === '"' || c === "'") {
      const end = closing(s, i, c, true, stats);
      // an unclosed quote is an apostrophe in prose: a punctuator, the text after it stays visible
      if (end < 0) {
        out.push({ kind: 'p', v: c, ws });
        i++;
      } else {
        out.push({ kind: 'str', v: s.slice(i + 1, end), ws });
        i = end + 1;
      }
    } else if (c === '`') {
      const end = closing(s, i, '`', false);
      const body = s.slice(i + 1, end < 0 ? n : end);
      out.push({ kind: 'tpl', v: body, ws, sub: body.includes('${') });
      i = end < 0 ? n : end + 1;
    } else if (c === '/' && startsExpression(out[out.length - 1])) {
      const end = regexEnd(s, i, stats);
      if (end < 0) {
        out.push({ kind: 'p', v: '/', ws });
        i++;
      } else {
        out.push({ kind: 're', v: s.slice(i, end), ws });
        i = end;
      }
    } else {
      const p = PUNCTUATORS.find((q) => s.startsWith(q, i)) ?? c;
      out.push({ kind: 'p', v: p, ws });
      i += p.length;
    }
    ws = false;
  }
  return out;
}

/** Index of the quote closing the one at `from`, or -1 (strings end at a line break; a
 *  single-line one is looked for within MAX_LITERAL characters). */
function closing(s: string, from: number, q: string, singleLine: boolean, stats?: ScanStats): number {
  const last = singleLine ? Math.min(s.length, from + 1 + MAX_LITERAL) : s.length;
  if (stats) stats.literalChars += last - from;
  for (let i = from + 1; i < last; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === q) return i;
    else if (singleLine && c === '\n') return -1;
  }
  return -1;
}

/** End (exclusive, after flags) of a regular expression literal at `from`, or -1. */
function regexEnd(s: string, from: number, stats?: ScanStats): number {
  let inClass = false;
  const last = Math.min(s.length, from + 1 + MAX_LITERAL);
  if (stats) stats.literalChars += last - from;
  for (let i = from + 1; i < last; i++) {
    const c = s[i];
    if (c === '\n') return -1;
    if (c === '\\') i++;
    else if (c === '[') inClass = true;
    else if (c === ']') inClass = false;
    else if (c === '/' && !inClass) {
      let j = i + 1;
      while (j < s.length && /[a-z]/i.test(s[j]!)) j++;
      return i + 1 === from + 1 ? -1 : j;
    }
  }
  return -1;
}

function startsExpression(prev: Token | undefined): boolean {
  if (!prev) return true;
  if (prev.kind === 'p') return !VALUE_END.has(prev.v);
  if (prev.kind === 'id') return KEYWORD_BEFORE_EXPRESSION.has(prev.v);
  return false;
}

// --- rules ------------------------------------------------------------------------------------

/** Names whose call runs a string as code, or reaches what can. */
const STRICT_CALLS = new Set(['eval', 'settimeout', 'setinterval', 'setimmediate', 'execscript', 'import', 'fromcharcode', 'atob']);
/** Tags that make a template a call even with a space before it (alert `1`, String.raw `x`). */
const TAGS = new Set([...STRICT_CALLS, 'raw', 'function', 'alert', 'prompt', 'confirm']);
/** In data (free text) only these are code whatever the argument ("Import(s) by region" is a label). */
const DATA_CALLS = new Set(['eval', 'execscript']);
/** Called with a string or template argument: code in data as well. */
const STRING_CALLS = new Set(['function', 'settimeout', 'setinterval', 'setimmediate', 'import']);
/** Objects whose members reach the page or the engine. */
const GLOBALS = new Set(['document', 'window', 'globalthis', 'reflect', 'self', 'top', 'parent', 'frames', 'navigator', 'location', 'localstorage', 'sessionstorage', 'indexeddb']);
/** Of those, the ones a title rarely starts a sentence with ("Top. Then..."): refused on any member access in options. */
const STRICT_GLOBALS = new Set(['document', 'window', 'globalthis', 'reflect']);
const PROTO_NAMES = new Set(['constructor', '__proto__', 'prototype']);
const CONSTRUCTED = new Set(['function', 'proxy', 'worker', 'sharedworker', 'websocket', 'eventsource', 'xmlhttprequest']);
const NOT_A_PARAMETER = new Set(['function', 'class', 'new', 'return', 'typeof', 'void', 'delete', 'in', 'of', 'instanceof', 'this', 'true', 'false', 'null']);

export type CodeKind =
  | 'function expression'
  | 'arrow function'
  | 'class'
  | 'method or function body'
  | 'code call'
  | 'template substitution'
  | 'tagged template'
  | 'prototype access'
  | 'DOM access';

/**
 * The kind of code found in `text` (already de-obfuscated), or null. `strict` is for option
 * values (colours, fonts, titles), where any call of a dangerous name, any member access of a
 * global and any function keyword used as a value is refused; data (labels) is free text and
 * only unambiguous code shapes are refused there.
 */
export function findCode(text: string, strict: boolean, depth = 0): CodeKind | null {
  const t = tokenize(text);
  const match = matchBrackets(t);
  for (let i = 0; i < t.length; i++) {
    const found = ruleAt(t, i, match, strict);
    if (found) return found;
    // code can hide inside a string literal: its contents are checked too, a bounded number of levels
    const tok = t[i]!;
    if ((tok.kind === 'str' || tok.kind === 'tpl') && depth < 2 && /[(=`{[.]/.test(tok.v)) {
      const inner = findCode(tok.v, strict, depth + 1);
      if (inner) return inner;
    }
  }
  return null;
}

/** For each `)`, `]`, `}` the index of its opener, and for each opener its closer (-1 if none). */
function matchBrackets(t: Token[]): Int32Array {
  const m = new Int32Array(t.length).fill(-1);
  const stack: number[] = [];
  const open: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
  for (let i = 0; i < t.length; i++) {
    const tok = t[i]!;
    if (tok.kind !== 'p') continue;
    if (tok.v === '(' || tok.v === '[' || tok.v === '{') stack.push(i);
    else if (open[tok.v]) {
      // unbalanced prose: drop openers of another kind until one matches (each popped once)
      while (stack.length && t[stack[stack.length - 1]!]!.v !== open[tok.v]) stack.pop();
      const o = stack.pop();
      if (o !== undefined) {
        m[i] = o;
        m[o] = i;
      }
    }
  }
  return m;
}

const isP = (tok: Token | undefined, v: string) => tok?.kind === 'p' && tok.v === v;
const isId = (tok: Token | undefined, v?: string) => tok?.kind === 'id' && (v === undefined || tok.v === v);

function ruleAt(t: Token[], i: number, m: Int32Array, strict: boolean): CodeKind | null {
  const tok = t[i]!;
  const next = t[i + 1];
  if (tok.kind === 'tpl') {
    if (tok.sub) return 'template substitution';
    const prev = t[i - 1];
    if (prev && !tok.ws && (prev.kind === 'id' || prev.kind === 'tpl' || isP(prev, ')') || isP(prev, ']'))) return 'tagged template';
    if (prev?.kind === 'id' && TAGS.has(prev.v)) return 'tagged template';
    return null;
  }
  if (tok.kind === 'p') {
    if (tok.v === '=>') return arrowAt(t, i, m);
    // `name(params) {`: a function, method (also get/set/async/*/computed) or statement body
    if (tok.v === ')' && isP(next, '{') && m[i] >= 0) {
      const before = t[m[i]! - 1];
      if (before && (before.kind === 'id' || before.kind === 'str' || before.kind === 'num' || isP(before, ']') || isP(before, '*'))) return 'method or function body';
    }
    return null;
  }
  if (tok.kind === 'str') {
    // self["eval"](...), obj['constructor']
    const name = tok.v.trim();
    if (isP(t[i - 1], '[') && PROTO_NAMES.has(name)) return 'prototype access';
    if (isP(t[i - 1], '[') && (strict ? STRICT_CALLS : DATA_CALLS).has(name) && calledAfter(t, i)) return 'code call';
    return null;
  }
  if (tok.kind !== 'id') return null;
  const v = tok.v;
  if (v === 'function') return functionAt(t, i, m, strict);
  if (v === 'class') return classAt(t, i);
  if (v === 'new' && next?.kind === 'id' && CONSTRUCTED.has(next.v) && (strict || next.v === 'function') && (isP(t[i + 2], '(') || t[i + 2]?.kind === 'tpl')) {
    return strict ? 'function expression' : 'code call';
  }
  if (PROTO_NAMES.has(v)) {
    const prev = t[i - 1];
    if (strict ? isP(prev, '.') || isP(prev, '?.') || isP(next, '.') || isP(next, '[') || isP(next, '=') : v !== 'prototype' && isP(prev, '.') && isP(next, '.')) return 'prototype access';
    if (v === '__proto__' && (isP(prev, '.') || isP(next, '.') || isP(next, '['))) return 'prototype access';
  }
  if (GLOBALS.has(v) && !isP(t[i - 1], '.') && (isP(next, '.') || isP(next, '[') || isP(next, '?.'))) {
    if (strict && (STRICT_GLOBALS.has(v) || isP(next, '['))) return 'DOM access';
    if (calledAfter(t, i + 1, 12)) return 'DOM access';
  }
  if ((strict ? STRICT_CALLS : DATA_CALLS).has(v) && calledAfter(t, i)) return 'code call';
  if (STRING_CALLS.has(v) && isP(next, '(') && (t[i + 2]?.kind === 'str' || t[i + 2]?.kind === 'tpl')) return 'code call';
  return null;
}

/** The token after `i`, skipping `)`, `]`, `?.` and member names, is a `(` or a template: a call. */
function calledAfter(t: Token[], i: number, limit = 4): boolean {
  for (let j = i + 1; j < t.length && j <= i + limit; j++) {
    const tok = t[j]!;
    if (isP(tok, '(') || tok.kind === 'tpl') return true;
    if (isP(tok, '=') && limit > 4) return true; // window.location = ...
    if (isP(tok, ')') || isP(tok, ']') || isP(tok, '?.') || isP(tok, '.') || isP(tok, '[')) continue;
    if (limit > 4 && (tok.kind === 'id' || tok.kind === 'str')) continue; // a member chain
    return false;
  }
  return false;
}

function functionAt(t: Token[], i: number, m: Int32Array, strict: boolean): CodeKind | null {
  let j = i + 1;
  if (isP(t[j], '*')) j++;
  if (t[j]?.kind === 'id') j++;
  const paren = t[j];
  if (t[j]?.kind === 'tpl') return 'code call';
  if (!isP(paren, '(')) {
    // Function passed as a value: Reflect.construct(Function, ...), [Function][0]
    const prev = t[i - 1];
    if (j === i + 1 && (isP(prev, '(') || isP(prev, ',') || isP(prev, '[')) && (isP(t[i + 1], ',') || isP(t[i + 1], ')') || isP(t[i + 1], ']'))) return 'code call';
    return null;
  }
  const close = m[j]!;
  if (close >= 0 && isP(t[close + 1], '{')) return 'function expression';
  if (strict) return 'function expression';
  return t[j + 1]?.kind === 'str' || t[j + 1]?.kind === 'tpl' ? 'code call' : null;
}

function classAt(t: Token[], i: number): CodeKind | null {
  // class [Name] [extends Expr] {
  for (let j = i + 1; j < t.length && j <= i + 6; j++) {
    const tok = t[j]!;
    if (isP(tok, '{')) return 'class';
    if (tok.kind === 'id' || isP(tok, '.')) continue;
    return null;
  }
  return null;
}

/**
 * `=>` at i is an arrow function when what precedes is a parameter list in a place where an
 * expression starts: `(a, b) =>` (at the start, after an operator or `(`), or a lone name whose
 * body then does something (uses the parameter, calls, reads a member, assigns, opens a block
 * or a template). "2019 => 2020 growth", "Sales (EUR) => up 5%" and "Revenue => profit" are prose.
 */
function arrowAt(t: Token[], i: number, m: Int32Array): CodeKind | null {
  const prev = t[i - 1];
  if (!prev) return null;
  let start: number;
  let param: string | null = null;
  if (isP(prev, ')')) {
    start = m[i - 1]!;
    if (start < 0) return null;
    for (let j = start + 1; j < i - 1; j++) {
      const tok = t[j]!;
      const ok = tok.kind === 'num' || tok.kind === 'str' || (tok.kind === 'id' && !NOT_A_PARAMETER.has(tok.v)) ||
        (tok.kind === 'p' && [',', '=', '...', '{', '}', '[', ']', ':'].includes(tok.v));
      if (!ok) return null;
    }
  } else if (prev.kind === 'id' && !NOT_A_PARAMETER.has(prev.v)) {
    start = i - 1;
    param = prev.v;
  } else return null;
  if (isId(t[start - 1], 'async')) start--;
  if (!startsExpression(t[start - 1]) && !isP(t[start - 1], '}')) return null;
  if (param === null) return 'arrow function';
  return bodyDoesSomething(t, i + 1, param) ? 'arrow function' : null;
}

function bodyDoesSomething(t: Token[], from: number, param: string): boolean {
  if (from >= t.length) return false;
  if (isP(t[from], '{')) return true;
  for (let j = from; j < t.length && j < from + 64; j++) {
    const tok = t[j]!;
    if (tok.kind === 'tpl' || (tok.kind === 'id' && tok.v === param)) return true;
    if (tok.kind !== 'p') continue;
    const before = t[j - 1];
    const valueBefore = j > from && (before?.kind === 'id' || before?.kind === 'str' || isP(before, ')') || isP(before, ']'));
    // a call or a member written as code, with no space ("x => y (approx.)" and "profit. Costs" are prose)
    if ((tok.v === '(' || tok.v === '[') && valueBefore && !tok.ws) return true;
    if ((tok.v === '.' || tok.v === '?.') && t[j + 1]?.kind === 'id' && valueBefore && !tok.ws && !t[j + 1]!.ws) return true;
    // an assignment (a later `=>` is judged at its own place)
    if (tok.v !== '=>' && tok.v.endsWith('=') && !['==', '===', '!=', '!==', '<=', '>='].includes(tok.v)) return true;
  }
  return false;
}
