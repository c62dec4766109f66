// The open endpoint's gate asks a standard JavaScript parser (acorn) whether a string, taken as a
// whole, is code: a function, an arrow function, a class, a call of eval/Function and their kin,
// a template with substitutions. Pure and linear (acorn is a single pass). Why a parser beside
// the token rules of ./jsTokens.ts: docs/decisions/0015-gate-parser.md.
import { parse, parseExpressionAt, type Options } from 'acorn';
import type { CodeKind } from './jsTokens.js';

/** Longer candidates are not parsed but refused: an open config is at most 6144 bytes, so only
 *  decoding (NFKC expands a few characters) can make a string this long. */
export const MAX_PARSE_CHARS = 8192;

/** Deeper candidates are refused unparsed: acorn descends once per bracket or arrow (dozens of
 *  frames each), so a string of 6000 `(` would cost milliseconds and end in a stack overflow. */
export const MAX_PARSE_DEPTH = 64;

// preserveParens: a parenthesised expression's node spans its parentheses, so "parsed whole" can
// be read from where the node ends
const OPTIONS: Options = { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true, allowAwaitOutsideFunction: true, preserveParens: true };

// Nothing this module refuses can be written without one of these: a function needs `function`
// or a method's `{`, an arrow `=>`, a class `class`, a substitution `${`, a tagged template a
// backquote, a refused call its name then `(` or a backquote, a refused member `.` or `[` then
// its name (the gate has undone escapes, so `\u0065val` is `eval` here). Strings without any
// (`rgba(0, 0, 0, 0.5)`, "Sales (EUR)", "Imports 2024") skip the parser.
const MAY_BE_CODE = /=>|[`{]|\bfunction\b|\bclass\b|(?:eval|execscript|set(?:timeout|interval|immediate)|fromcharcode|atob|import)\W*[(`]|[.[]\W*(?:constructor|__proto__|prototype)/i;
// What only a script parse finds (the expression parse comes first): statements after a label or
// a semicolon, on several lines, or opened by a block or a statement keyword.
const MAY_BE_STATEMENTS = /[;:\n\r\u2028\u2029]|^\s*(?:\{|(?:if|for|while|do|try|with|switch|var|let|const|return|throw|async|function|class)\b)/;

/** Names whose call runs a string as code (lower case: `EVAL` is not JavaScript's eval, but a
 *  case-folding layer must not turn it into one either). */
const CODE_CALLS = new Set(['eval', 'function', 'execscript', 'settimeout', 'setinterval', 'setimmediate']);
/** Option values only: names that decode or build strings to run (`fromCharCode`, `atob`). */
const STRICT_CALLS = new Set([...CODE_CALLS, 'fromcharcode', 'atob']);
/** Reaching these through a member is prototype access (the Function constructor and pollution). */
const PROTO_NAMES = new Set(['constructor', '__proto__', 'prototype']);
/** In data only constructor and __proto__ (a label may say "Array.prototype"). */
const DATA_PROTO_NAMES = new Set(['constructor', '__proto__']);

/** A parsed node as far as this module reads it (acorn's ESTree nodes). */
interface Node {
  type: string;
  [key: string]: unknown;
}

/** Whether a string is worth parsing (cheap; no match means acorn would find nothing to refuse). */
export function mayBeCode(text: string): boolean {
  return MAY_BE_CODE.test(text);
}

/**
 * The kind of code `text` is when parsed whole, as an expression or else as a script; null when
 * it does not parse (prose) or parses as harmless values (`rgba(0, 0, 0, 0.5)`, `f(x) = x^2`).
 * `strict` is for option values, where any function, arrow or class is refused. In data (free
 * text) an arrow that can only name a value (`Revenue => profit`, `x => 42`: one bare parameter
 * it never uses, a name or literal as body) is prose: even revived it would do nothing.
 */
export function parsedCodeKind(text: string, strict: boolean, budget: ParseBudget = { parses: Infinity }, fastPath = true): CodeKind | Unchecked | null {
  if (!mayBeCode(text)) return null;
  if (fastPath && !strict && isProseArrow(text)) return null;
  if (--budget.parses < 0) return 'too many to check';
  if (text.length > MAX_PARSE_CHARS) return 'too long to check';
  if (nestingBound(text) > MAX_PARSE_DEPTH) return 'too deeply nested to check';
  const root = parseWhole(text);
  return typeof root === 'string' ? root : root && findKind(root, strict);
}

const NAME = /^[A-Za-z_$][\w$]*$/;
const NUMBER = /^\d+(?:\.\d+)?$/;
/** Words whose meaning as a parameter or body is not a plain name: left to the parser. */
const NOT_A_PLAIN_NAME = new Set(('break case catch class const continue debugger default delete do else export extends false finally for ' +
  'function if import in instanceof new null return super switch this throw true try typeof var void while with yield let static ' +
  'enum await async of get set eval arguments implements package protected interface private public undefined NaN Infinity').split(' '));

/**
 * `Q1 => Q2`, `x => 42`, `a => b => c`: the commonest arrow in labels, answered without the
 * parser (a parse costs about 10 µs, and a 6 KB config holds hundreds of such labels). It is
 * exactly the shape namesAValue admits; anything else (a keyword, a repeated name) is parsed.
 */
function isProseArrow(text: string): boolean {
  const parts = text.split('=>');
  if (parts.length < 2) return false;
  let previous = '';
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!.trim();
    const last = i === parts.length - 1;
    if (NAME.test(part)) {
      if (NOT_A_PLAIN_NAME.has(part) || part === previous) return false;
    } else if (!(last && NUMBER.test(part))) return false;
    previous = part;
  }
  return true;
}

/** Why a candidate was refused without an answer (the gate fails closed). */
export type Unchecked = 'too long to check' | 'too deeply nested to check' | 'too many to check';

/** Parses one config may still spend (each costs 10-40 µs, most of it acorn's set-up and error). */
export interface ParseBudget {
  parses: number;
}

/**
 * An upper bound of the nesting acorn would descend into: open brackets, plus the arrows whose
 * bodies are still open (an arrow's body runs to the next `,` or `;` or to the bracket that
 * encloses it), so `(a)=>(a)=>...` counts each arrow while "A => B, C => D, ..." counts one.
 */
function nestingBound(text: string): number {
  const arrows: number[] = [0]; // open arrows per bracket level
  let open = 0; // brackets plus open arrows
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 40 || c === 91 || c === 123) {
      arrows.push(0); // ( [ {
      max = Math.max(max, ++open);
    } else if (c === 41 || c === 93 || c === 125) {
      if (arrows.length > 1) open -= 1 + arrows.pop()!; // ) ] }
    } else if (c === 44 || c === 59) {
      open -= arrows[arrows.length - 1]!; // , ;
      arrows[arrows.length - 1] = 0;
    } else if (c === 61 && text.charCodeAt(i + 1) === 62) {
      arrows[arrows.length - 1]!++; // =>
      max = Math.max(max, ++open);
    }
  }
  return max;
}

function parseWhole(text: string): Node | 'too deeply nested to check' | null {
  try {
    try {
      const expr = parseExpressionAt(text, 0, OPTIONS) as unknown as Node & { end: number };
      if (/^[\s;]*$/.test(text.slice(expr.end))) return expr;
    } catch (err) {
      if (!(err instanceof SyntaxError) || err.message.startsWith('Not enough stack space')) throw err;
    }
    // not an expression: perhaps statements (`if (x) { ... }`, `f(); g()`, `label: x => x`)
    return MAY_BE_STATEMENTS.test(text) ? (parse(text, OPTIONS) as unknown as Node) : null;
  } catch (err) {
    // a chain of unary, ternary or assignment operators can still recurse past the stack: acorn
    // reports that as a SyntaxError of its own (catchStackOverflow), older versions as a RangeError
    if (err instanceof RangeError || (err instanceof SyntaxError && err.message.startsWith('Not enough stack space'))) return 'too deeply nested to check';
    if (err instanceof SyntaxError) return null;
    throw err;
  }
}

/** Depth-first over every node (iterative: a deeply nested parse cannot overflow the stack). */
function findKind(root: Node, strict: boolean): CodeKind | null {
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const kind = nodeKind(node, strict);
    if (kind) return kind;
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (Array.isArray(child)) {
        for (const c of child) if (isNode(c)) stack.push(c);
      } else if (isNode(child)) stack.push(child);
    }
  }
  return null;
}

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && typeof (v as Node).type === 'string';
}

function nodeKind(node: Node, strict: boolean): CodeKind | null {
  switch (node.type) {
    case 'FunctionExpression':
    case 'FunctionDeclaration':
      return 'function expression';
    case 'ArrowFunctionExpression':
      return strict || !namesAValue(node) ? 'arrow function' : null;
    case 'ClassExpression':
    case 'ClassDeclaration':
      return 'class';
    case 'TemplateLiteral':
      return (node.expressions as Node[]).length > 0 ? 'template substitution' : null;
    case 'TaggedTemplateExpression':
      return 'tagged template';
    case 'ImportExpression':
      return 'code call';
    case 'CallExpression':
    case 'NewExpression': {
      const name = calleeName(node.callee as Node);
      return name !== null && (strict ? STRICT_CALLS : CODE_CALLS).has(name) ? 'code call' : null;
    }
    case 'MemberExpression': {
      const name = propertyName(node);
      return name !== null && (strict ? PROTO_NAMES : DATA_PROTO_NAMES).has(name) ? 'prototype access' : null;
    }
    default:
      return null;
  }
}

/** `x => 42`, `Revenue => profit`, `a => b => c`: one plain parameter, never used, a name or literal as body. */
function namesAValue(arrow: Node): boolean {
  const params = arrow.params as Node[];
  if (arrow.async || params.length !== 1 || params[0]!.type !== 'Identifier') return false;
  const body = arrow.body as Node;
  if (body.type === 'Literal') return typeof body.value !== 'object'; // not a regular expression
  if (body.type === 'Identifier') return body.name !== params[0]!.name;
  return body.type === 'ArrowFunctionExpression' && namesAValue(body);
}

/** The name a call reaches: `eval`, `window.eval`, `self["eval"]`, `(0, eval)`, `eval?.()`. */
function calleeName(callee: Node): string | null {
  let n = callee;
  for (;;) {
    if (n.type === 'ChainExpression' || n.type === 'ParenthesizedExpression') n = n.expression as Node;
    else if (n.type === 'SequenceExpression') n = (n.expressions as Node[]).at(-1)!;
    else break;
  }
  if (n.type === 'Identifier') return (n.name as string).toLowerCase();
  if (n.type === 'MemberExpression') return propertyName(n);
  return null;
}

function propertyName(member: Node): string | null {
  const p = member.property as Node;
  if (!member.computed && p.type === 'Identifier') return (p.name as string).toLowerCase();
  if (p.type === 'Literal' && typeof p.value === 'string') return p.value.trim().toLowerCase();
  if (p.type === 'TemplateLiteral' && (p.expressions as Node[]).length === 0) {
    return ((p.quasis as Node[])[0]!.value as { cooked: string }).cooked.trim().toLowerCase();
  }
  return null;
}
