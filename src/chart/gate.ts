// Security gate of the open endpoint (pure, never throws): defence in depth, refusing what would
// become dangerous if another layer failed. Why: docs/decisions/0008-open-endpoint.md.

import { findCode } from './jsTokens.js';
import { parsedCodeKind, type ParseBudget } from './jsParse.js';
import { typesOf, type VersionTypes } from './chartjsPages.js';

/** The open endpoint draws with Chart.js 4; keyless QuickChart routes pass their version's list. */
const V4_TYPES: VersionTypes = typesOf(4);
const MAX_DEPTH = 32;
const MAX_NODES = 100_000;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Strings handed to the parser per config: a parse costs 10-40 µs, so this holds the gate of a
 *  6144-byte config to a few milliseconds. Past it the config is refused (few labels name code
 *  words, braces or backquotes; prose arrows in data are answered without a parse). */
export const MAX_PARSES_PER_CONFIG = 64;

// What the gate refuses:
// - Shape: a plain JSON object whose `type` (and every dataset `type`) is one the page of its
//   Chart.js version draws (chartjsPages.ts: Chart.js 4's on the open endpoint);
//   no top-level `plugins` key (it is the hook for arbitrary code in Chart.js); no
//   `__proto__` / `constructor` / `prototype` key anywhere (prototype pollution); at most
//   MAX_DEPTH levels and MAX_NODES values (the walk is bounded, so cycles and bombs end fast);
//   only JSON values (functions, symbols, bigints, class instances are refused).
// - Outside config.data (options and the like): strings are option values (colours, fonts,
//   positions, titles), so anything code-shaped is refused: `=>`, `function(` (which covers
//   Function( and new Function(), eval / setTimeout / import(...) calls, constructor/prototype access,
//   document/window access, HTML tags and on*= handlers, CSS url(), script and active
//   data: URLs, and every remote URL (http:, https:, ftp:, ws:, wss:, file:, //host, ...).
// - Inside config.data: labels are free text, so words like "eval score", "function of time",
//   "Revenue => profit", "JavaScript: 62%" and URLs pass. Only unambiguous code is refused:
//   <script> and other active HTML tags, markup with handlers, script URLs that do something
//   (call, assign), data:text/html, function expressions with a body, arrows with a block
//   body or whose whole string is an arrow doing something (call, member access, assignment),
//   eval(...), new Function(...), string-taking Function/setTimeout/import, and
//   constructor.constructor.
// - Every string is checked after undoing obfuscation: \u / \x escapes, HTML entities, URL
//   encoding (repeatedly, for double encoding), NFKC (full-width letters), invisible and
//   control characters, case, runs of whitespace and /* comments */. Script schemes are also
//   matched with every space removed (`JaVaScRiPt :`), as URL parsers drop tabs and newlines.
//   A newline inside an identifier (`e\nval(`) is two words, so it is not a call.
// - Every string that may be code is also parsed whole by acorn (./jsParse.ts), with its case
//   kept: one that parses as a function, an arrow function, a class, a call of eval, Function,
//   setTimeout and their kin, a template with substitutions or a tagged template is refused
//   (`_ => 0`, `ctx => ({ size: 12 })`), in options always; in data an arrow that only names a
//   value ("Revenue => profit", "x => 42") is prose. The token rules above stay for code inside
//   prose, which does not parse as a whole ("Total: `${fetch('/x')}` items").
/** Returns null when the config may be rendered on the open endpoint, else a short human-readable reason (used as the error detail of 400 invalid_config). Never throws, whatever the input. */
export function findGateViolation(config: unknown, types: VersionTypes = V4_TYPES): string | null {
  try {
    return checkConfig(config, types);
  } catch {
    // a getter or proxy that throws: not parsed JSON, so refuse it
    return 'config could not be checked';
  }
}

// --- the walk ----------------------------------------------------------------------------

interface WalkState {
  nodes: number;
  /** parses left (MAX_PARSES_PER_CONFIG) */
  readonly budget: ParseBudget;
  readonly path: Array<string | number>;
}

function checkConfig(config: unknown, types: VersionTypes): string | null {
  if (!isPlainObject(config)) return 'config must be a JSON object';
  if (Object.hasOwn(config, 'plugins')) return 'top-level plugins are not allowed';
  const type = config.type;
  // no top-level type: a mixed chart whose every dataset names its own (checkDatasetTypes)
  if (type !== undefined || !everyDatasetTyped(config)) {
    if (typeof type !== 'string') return 'config.type must be a string naming the chart type (or every dataset names its own)';
    if (!types.chart.has(type)) return `unsupported chart type ${quote(type)}`;
  }
  const state: WalkState = { nodes: 0, budget: { parses: MAX_PARSES_PER_CONFIG }, path: [] };
  return walk(config, 1, false, state) ?? checkDatasetTypes(config, types.dataset);
}

function everyDatasetTyped(config: Record<string, unknown>): boolean {
  const datasets = isPlainObject(config.data) ? config.data.datasets : undefined;
  return Array.isArray(datasets) && datasets.length > 0 && datasets.every((ds: unknown) => isPlainObject(ds) && typeof ds.type === 'string');
}

function checkDatasetTypes(config: Record<string, unknown>, known: ReadonlySet<string>): string | null {
  const data = config.data;
  const datasets = isPlainObject(data) ? data.datasets : undefined;
  if (!Array.isArray(datasets)) return null;
  for (let i = 0; i < datasets.length; i++) {
    const ds: unknown = datasets[i];
    if (!isPlainObject(ds) || ds.type === undefined) continue;
    if (typeof ds.type !== 'string') return `dataset type must be a string at config.data.datasets[${i}]`;
    if (!known.has(ds.type)) return `unsupported dataset type ${quote(ds.type)} at config.data.datasets[${i}]`;
  }
  return null;
}

/** `level` is the nesting level of `value` (the config itself is 1). */
function walk(value: unknown, level: number, inData: boolean, state: WalkState): string | null {
  if (++state.nodes > MAX_NODES) return 'config too large';
  switch (typeof value) {
    case 'string': {
      const what = inData ? dataViolation(value, state) : optionViolation(value, state);
      return what && `${what} at ${pathText(state.path)}`;
    }
    case 'number':
    case 'boolean':
    case 'undefined':
      return null;
    case 'object':
      if (value === null) return null;
      break;
    default:
      return `unsupported ${typeof value} value at ${pathText(state.path)}`;
  }
  if (level > MAX_DEPTH) return 'config too deeply nested';
  const { path } = state;
  if (Array.isArray(value)) {
    // checked before the loop: a sparse array may claim a huge length
    if (state.nodes + value.length > MAX_NODES) return 'config too large';
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      const found = walk(value[i], level + 1, inData, state);
      path.pop();
      if (found) return found;
    }
    return null;
  }
  if (!isPlainObject(value) || Object.getOwnPropertySymbols(value).length > 0) {
    return `unsupported value at ${pathText(path)}`;
  }
  const keys = Object.keys(value);
  if (state.nodes + keys.length > MAX_NODES) return 'config too large';
  for (const key of keys) {
    if (FORBIDDEN_KEYS.has(key)) return `forbidden key "${key}" at ${pathText(path)}`;
    const childInData = inData || (level === 1 && key === 'data');
    path.push(key);
    const keyWhat = childInData ? dataViolation(key, state) : optionViolation(key, state);
    const found = keyWhat ? `${keyWhat} in a key at ${pathText(path)}` : walk(value[key], level + 1, childInData, state);
    path.pop();
    if (found) return found;
  }
  return null;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function pathText(path: ReadonlyArray<string | number>): string {
  let out = 'config';
  for (const seg of path) {
    // never echo a hostile key back in the error detail
    out += typeof seg === 'number' ? `[${seg}]` : /^[A-Za-z_$][\w$-]{0,39}$/.test(seg) ? `.${seg}` : '[…]';
  }
  return out.length > 160 ? `…${out.slice(-160)}` : out;
}

function quote(s: string): string {
  return /^[\w -]{1,40}$/.test(s) ? `"${s}"` : '(unprintable)';
}

// --- string checks -----------------------------------------------------------------------

// Every rule needs one of these characters once de-obfuscated; escapes need \ & %, and NFKC
// only maps non-ASCII. Strings without any of them (most labels and numbers) skip the work.
const SUSPECT = /[(<:=/\\&%`{.[\u0080-\uffff]/;

/** The de-obfuscated views of one string, each computed on first use (most rules need one). */
class Forms {
  #code?: string;
  #url?: string;
  #compact?: string;
  /** `plain`: decoded, NFKC, invisible characters removed, lower case; `cased`: the same before
   *  lower-casing, what the parser reads (JavaScript names are case-sensitive) */
  constructor(
    private readonly plain: string,
    readonly cased: string,
  ) {}
  /** what the JavaScript tokenizer reads (it skips whitespace and comments itself) */
  get text(): string {
    return this.plain;
  }
  /** whitespace runs -> one space, block comments removed: what a JS tokenizer sees */
  get code(): string {
    return (this.#code ??= stripComments(NOT_ONE_SPACE.test(this.plain) ? this.plain.replace(/\s+/g, ' ') : this.plain));
  }
  /** tabs and newlines deleted, as a URL parser does */
  get url(): string {
    return (this.#url ??= this.plain.replace(/[\t\n\r]/g, ''));
  }
  /** `code` without any space */
  get compact(): string {
    return (this.#compact ??= this.code.replaceAll(' ', ''));
  }
}

const ESCAPE = /\\u\{([0-9a-f]{1,6})\}|\\u([0-9a-f]{4})|\\x([0-9a-f]{2})/gi;
const NUMERIC_ENTITY = /&#x0*([0-9a-f]{1,6});?|&#0*([0-9]{1,7});?/gi;
// legacy HTML also accepts a few of these without the semicolon (&ltscript)
const NAMED_ENTITY = /&(colon|lpar|rpar|sol|bsol|lowbar|equals|period|comma|semi|excl|quest|grave|apos|quot|lsqb|rsqb|lbrack|rbrack|lcub|rcub|lbrace|rbrace|num|percnt|plus|tab|newline|nbsp|lt|gt|amp);?/gi;
const ENTITIES: Record<string, string> = {
  colon: ':', lpar: '(', rpar: ')', sol: '/', bsol: '\\', lowbar: '_', equals: '=', period: '.',
  comma: ',', semi: ';', excl: '!', quest: '?', grave: '`', apos: "'", quot: '"', lsqb: '[',
  rsqb: ']', lbrack: '[', rbrack: ']', lcub: '{', rcub: '}', lbrace: '{', rbrace: '}', num: '#',
  percnt: '%', plus: '+', tab: '\t', newline: '\n', nbsp: ' ', lt: '<', gt: '>', amp: '&',
};
const NEEDS_NFKC = /[^\x20-\x7e\u00c0-\u024f]/;
const NOT_ONE_SPACE = /\s\s|[^\S ]/;
const MAYBE_ENCODED = /\\[ux]|&[#a-z]|%[0-9a-f]{2}/i;
const PERCENT_RUN = /(?:%[0-9a-f]{2})+/gi;
const INVISIBLE = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]/g;

function codePoint(hex: string, radix = 16): string {
  const cp = parseInt(hex, radix);
  return cp <= 0x10ffff ? String.fromCodePoint(cp) : '\ufffd';
}

function decodeOnce(s: string): string {
  return s
    .replace(ESCAPE, (_m, a?: string, b?: string, c?: string) => codePoint((a ?? b ?? c)!))
    .replace(NUMERIC_ENTITY, (_m, hex?: string, dec?: string) => (hex ? codePoint(hex) : codePoint(dec!, 10)))
    .replace(NAMED_ENTITY, (_m, name: string) => ENTITIES[name.toLowerCase()] ?? '')
    .replace(PERCENT_RUN, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run.replace(/%([0-9a-f]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
      }
    });
}

function forms(raw: string): Forms {
  let s = raw;
  // a few rounds undo double encoding (&amp;#106; %253C) without looping forever
  for (let round = 0; round < 4 && MAYBE_ENCODED.test(s); round++) {
    const next = decodeOnce(s.replace(INVISIBLE, ''));
    if (next === s) break;
    s = next;
  }
  // accented Latin letters (common in labels) have no compatibility form worth the cost
  if (NEEDS_NFKC.test(s)) s = s.normalize('NFKC').replace(INVISIBLE, '');
  return new Forms(s.toLowerCase(), s);
}

/** Replaces closed block comments by a space (`eval/**\/(`), in linear time. */
function stripComments(s: string): string {
  let start = s.indexOf('/*');
  if (start < 0) return s;
  let out = '';
  let from = 0;
  while (start >= 0) {
    const end = s.indexOf('*/', start + 2);
    if (end < 0) break;
    out += s.slice(from, start) + ' ';
    from = end + 2;
    start = s.indexOf('/*', from);
  }
  return (out + s.slice(from)).replace(/ {2,}/g, ' ');
}

type Rule = readonly [RegExp, 'code' | 'url' | 'compact', string];

// JavaScript is recognised by a tokenizer and rules over its tokens (./jsTokens.ts). What is
// left here are markup and URL checks: HTML, CSS url(), script and data: schemes, remote URLs.
const SCRIPT_SCHEME = /(?:java|vb|live)script:/;
const ACTIVE_DATA_URL = /data:(?:text\/(?:html|javascript|xml|ecmascript)|application\/|image\/svg)/;
const EVENT_HANDLER = /\bon[a-z]{3,} ?=/;
const HTML_TAG = /<\/?[a-z]/;

const OPTION_RULES: readonly Rule[] = [
  [/<[a-z!/?]|< ?\/? ?script\b/, 'code', 'HTML markup'],
  [EVENT_HANDLER, 'code', 'HTML event handler'],
  [/\burl ?\(|@import\b/, 'code', 'CSS url()'],
  [SCRIPT_SCHEME, 'compact', 'script URL'],
  [ACTIVE_DATA_URL, 'compact', 'active data: URL'],
  [/(?:^|[^a-z0-9+.-])(?:https?|s?ftps?|wss?|file|blob|filesystem|gopher|ldaps?|smb|ssh|telnet|ipfs|ipns|jar|view-source):(?=\S)/, 'url', 'remote URL'],
  [/[/\\]{2}[^/\\\s]/, 'url', 'remote URL'],
];

const DATA_RULES: readonly Rule[] = [
  [/< ?\/? ?script\b|<\/?(?:iframe|frame|frameset|object|embed|applet|svg|img|image|video|audio|source|link|meta|style|base|form|input|body|html|math|details|marquee|template|xmp|noscript|portal)\b/, 'code', 'HTML markup'],
  [/^\s*(?:java|vb|live)script:[\s\S]*[(`=]/, 'url', 'script URL'],
  [/^\s*data:(?:text\/(?:html|javascript|xml|ecmascript)|application\/|image\/svg)/, 'url', 'active data: URL'],
];

function applyRules(f: Forms, rules: readonly Rule[]): string | null {
  for (const [re, form, what] of rules) if (re.test(f[form])) return `looks like code (${what})`;
  return null;
}

function codeViolation(f: Forms, strict: boolean, state: WalkState): string | null {
  const kind = findCode(f.text, strict);
  if (kind) return `looks like code (${kind})`;
  // fail closed: past a bound nothing more is parsed, so the config is not admitted
  const parsed = parsedCodeKind(f.cased, strict, state.budget);
  if (parsed === 'too many to check') return 'too many strings that may be code to check';
  if (parsed === 'too long to check' || parsed === 'too deeply nested to check') return `a string that may be code is ${parsed}`;
  return parsed && `looks like code (${parsed})`;
}

function optionViolation(raw: string, state: WalkState): string | null {
  if (!SUSPECT.test(raw)) return null;
  const f = forms(raw);
  return applyRules(f, OPTION_RULES) ?? codeViolation(f, true, state);
}

function dataViolation(raw: string, state: WalkState): string | null {
  if (!SUSPECT.test(raw)) return null;
  const f = forms(raw);
  const found = applyRules(f, DATA_RULES) ?? codeViolation(f, false, state);
  if (found) return found;
  if (HTML_TAG.test(f.code) && (EVENT_HANDLER.test(f.code) || SCRIPT_SCHEME.test(f.compact))) {
    return 'looks like code (HTML with script)';
  }
  return null;
}
