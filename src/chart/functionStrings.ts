// Finds a function string the page would fail to turn into a function (pure): a scan of its
// text for unbalanced brackets, unclosed strings and dangling operators. Never compiles or runs it.
import type { ChartConfig } from './request.js';
import { childRole, type Role } from './childRole.js';

/** What the page revives (renderer-page/harness/revive.js): `function (a) { ... }` and `(a) => ...` / `a => ...`. */
const FN_RE = /^\s*function\s*(?:[A-Za-z_$][\w$]*)?\s*\(([^()]*)\)\s*\{([\s\S]*)\}\s*$/;
const ARROW_RE = /^\s*(?:([A-Za-z_$][\w$]*)|\(([^()]*)\))\s*=>\s*([\s\S]*?)\s*$/;
/** Strings that start like a function: anything else stays text (labels, titles, prose). */
const FN_START = /^\s*function\s*(?:[A-Za-z_$][\w$]*)?\s*\(/;
const ARROW_START = /^\s*(?:[A-Za-z_$][\w$]*|\([^()]*\))\s*=>/;
/** The page leaves longer strings as text. */
export const MAX_FUNCTION_CHARS = 100_000;

/**
 * The first function string of `config` that would not become a function in the page, as
 * "<path> <reason>" (path from `field`, e.g. chart.options.scales.y.ticks.callback), or null.
 */
export function findBadFunctionString(config: ChartConfig, field = 'chart'): string | null {
  // Iterative, and data arrays (role 'text') are not walked: a 100,000-point dataset costs nothing.
  const stack: Array<{ v: unknown; path: string; role: Role }> = [{ v: config, path: field, role: 'root' }];
  while (stack.length > 0) {
    const { v, path, role } = stack.pop()!;
    if (role === 'text') continue;
    if (typeof v === 'string') {
      const why = functionProblem(v);
      if (why) return `${path} ${why}`;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${path}[${i}]`, role: childRole(role, i) });
    } else if (v !== null && typeof v === 'object') {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const k = keys[i]!;
        const name = /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k.slice(0, 40))}]`;
        stack.push({ v: (v as Record<string, unknown>)[k], path: path + name, role: childRole(role, k) });
      }
    }
  }
  return null;
}

/** Why a string that starts like a function would not become one; null when it would (or is text). */
export function functionProblem(s: string): string | null {
  // a function has a body: "function(x) is plotted" without one is a sentence
  const isFn = FN_START.test(s) && s.includes('{');
  if (!isFn && !ARROW_START.test(s)) return null;
  const what = 'is a function string that does not parse';
  if (s.length > MAX_FUNCTION_CHARS) return `${what}: longer than ${MAX_FUNCTION_CHARS} characters`;
  if (isFn && !FN_RE.test(s)) return `${what}: write function (a, b) { ... } with nothing after its closing }`;
  if (!isFn) {
    const m = ARROW_RE.exec(s);
    if (!m || !m[3]) return `${what}: the arrow has no body`;
  }
  const why = scanProblem(s);
  return why ? `${what}: ${why}` : null;
}

const CLOSE: Record<string, string> = { ')': '(', ']': '[', '}': '{' };
/** Binary or prefix operators: one directly before a closing bracket or the end is a syntax error. */
const DANGLING = new Set(['+', '-', '*', '/', '%', '**', '=', '==', '===', '!=', '!==', '<', '>', '<=', '>=', '&&', '||', '??', '.', '?',
  '=>', '+=', '-=', '*=', '/=', '%=', '&', '|', '^', '<<', '>>', '>>>', '!', '~']);
const OPERATORS = ['>>>=', '===', '!==', '**=', '<<=', '>>=', '>>>', '...', '=>', '?.', '??', '&&', '||', '==', '!=', '<=', '>=', '++', '--',
  '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '**', '<<', '>>'];
/** After these a `/` starts a regular expression, not a division. */
const KEYWORDS_BEFORE_EXPRESSION = new Set(['return', 'typeof', 'void', 'delete', 'in', 'of', 'new', 'case', 'do', 'else', 'instanceof', 'throw']);

/**
 * One linear pass over the text: strings, template literals (with ${...}), comments and regular
 * expressions are skipped as JavaScript reads them; brackets must pair up; an operator may not
 * sit right before a closing bracket or the end. Not a full parse: what passes may still fail in
 * the page, what fails here cannot work.
 */
function scanProblem(s: string): string | null {
  // '(' '[' '{' and '${' (a template substitution, closed by '}')
  const stack: string[] = [];
  let prev = ''; // the last token: an operator, a bracket, 'v' (a value) or a keyword
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c = s[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || /\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '/' && s[i + 1] === '/') {
      const end = s.indexOf('\n', i);
      i = end < 0 ? n : end;
      continue;
    }
    if (c === '/' && s[i + 1] === '*') {
      const end = s.indexOf('*/', i + 2);
      if (end < 0) return 'a /* comment is not closed';
      i = end + 2;
      continue;
    }
    if (c === '"' || c === "'") {
      const end = stringEnd(s, i, c);
      if (end < 0) return `a ${c} string is not closed`;
      i = end;
      prev = 'v';
      continue;
    }
    if (c === '`' || (c === '}' && stack[stack.length - 1] === '${')) {
      if (c === '}') stack.pop();
      const end = templateEnd(s, i + 1);
      if (end < 0) return 'a ` template string is not closed';
      if (s[end - 1] === '{') stack.push('${');
      else prev = 'v';
      i = end;
      continue;
    }
    if (/[A-Za-z_$\u0080-\uffff]/.test(c)) {
      let j = i + 1;
      while (j < n && /[\w$\u0080-\uffff]/.test(s[j]!)) j++;
      const word = s.slice(i, j);
      prev = KEYWORDS_BEFORE_EXPRESSION.has(word) ? word : 'v';
      i = j;
      continue;
    }
    if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(s[i + 1] ?? ''))) {
      let j = i + 1;
      while (j < n && (/[\w.]/.test(s[j]!) || ((s[j] === '+' || s[j] === '-') && /[eE]/.test(s[j - 1]!)))) j++;
      prev = 'v';
      i = j;
      continue;
    }
    if (c === '/' && !isValueEnd(prev)) {
      const end = regexEnd(s, i + 1);
      // not a regular expression after all: read the slash as a division
      if (end > 0) {
        i = end;
        prev = 'v';
        continue;
      }
    }
    if (c === '(' || c === '[' || c === '{') {
      stack.push(c);
      prev = c;
      i++;
      continue;
    }
    if (c === ')' || c === ']' || c === '}') {
      if (DANGLING.has(prev)) return `"${prev}" has nothing after it before "${c}"`;
      const open = stack.pop();
      if (open !== CLOSE[c]) return open === undefined ? `"${c}" has no opening "${CLOSE[c]}"` : `"${c}" closes "${open === '${' ? '${' : open}"`;
      prev = c;
      i++;
      continue;
    }
    const op = OPERATORS.find((o) => s.startsWith(o, i)) ?? c;
    prev = op;
    i += op.length;
  }
  if (stack.length > 0) {
    const open = stack[stack.length - 1]!;
    return `"${open}" is not closed`;
  }
  if (DANGLING.has(prev)) return `it ends with "${prev}"`;
  return null;
}

function isValueEnd(prev: string): boolean {
  return prev === 'v' || prev === ')' || prev === ']' || prev === '}' || prev === '++' || prev === '--';
}

/** Index after the closing quote, or -1 (a line break or the end comes first). */
function stringEnd(s: string, start: number, quote: string): number {
  for (let i = start + 1; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === quote) return i + 1;
    else if (c === '\n' || c === '\r') return -1;
  }
  return -1;
}

/** From inside a template: index after its closing backquote or after a `${`, or -1. */
function templateEnd(s: string, start: number): number {
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === '`') return i + 1;
    else if (c === '$' && s[i + 1] === '{') return i + 2;
  }
  return -1;
}

/** From after the opening slash: index after the flags, or -1 when no closing slash is on the line. */
function regexEnd(s: string, start: number): number {
  let inClass = false;
  for (let i = start; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === '\n' || c === '\r') return -1;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '/') {
      let j = i + 1;
      while (j < s.length && /[a-z]/i.test(s[j]!)) j++;
      return j;
    }
  }
  return -1;
}
