// How deep JSON text nests, measured without parsing it (pure, linear).

/**
 * Deepest nesting a config may have, whether it arrives as a body, a JSON string field or a
 * query parameter. Chart.js configs stay near 10; text nested thousands deep parses fine but
 * overflows the stack of every recursive walk after it (structuredClone, ajv, the canonical
 * digest), which would be a 500 for a client's mistake.
 */
export const MAX_JSON_DEPTH = 64;

/** The deepest [ / { nesting of JSON text, brackets inside strings ignored (linear, no parse). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      // a string is skipped in a loop of its own: megabyte configs are mostly strings and numbers
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 92 /* \ */) i++;
        else if (d === 34) break;
      }
    } else if (c === 123 || c === 91 /* { [ */) {
      if (++depth > max) max = depth;
    } else if (c === 125 || c === 93 /* } ] */) depth--;
  }
  return max;
}

/** nestingDepth's answer, and where the members of a top-level object lie in the bytes. */
export interface JsonScan {
  depth: number;
  /**
   * [start, end) byte offsets of each top-level member's value (the last one of a repeated
   * key, as JSON.parse keeps), by the key as written; null when the text is not an object or
   * a key carries an escape (its parsed name could differ from the text).
   */
  members: Map<string, [number, number]> | null;
}

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/**
 * nestingDepth and the top-level member spans in one pass over the UTF-8 bytes of a JSON body
 * (a body is scanned once). Bytes rather than the decoded string: every structural character is
 * ASCII and no byte of a multi-byte character is, and indexing bytes is about twice as fast
 * (a 2 MB body of points: 22 -> 12 ms).
 */
export function scanJson(bytes: Uint8Array): JsonScan {
  let depth = 0;
  let max = 0;
  const n = bytes.length;
  let start = 0;
  while (start < n && isSpace(bytes[start]!)) start++;
  let members: Map<string, [number, number]> | null = bytes[start] === 123 ? new Map() : null;
  let expectKey = false;
  let key: string | null = null;
  let valueStart = 0;
  const close = (end: number) => {
    if (key === null || !members) return;
    let a = valueStart;
    let b = end;
    while (a < b && isSpace(bytes[a]!)) a++;
    while (b > a && isSpace(bytes[b - 1]!)) b--;
    members.set(key, [a, b]);
    key = null;
  };
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    if (c === 34 /* " */) {
      const from = i + 1;
      let escaped = false;
      for (i++; i < n; i++) {
        const d = bytes[i]!;
        if (d === 92 /* \ */) {
          escaped = true;
          i++;
        } else if (d === 34) break;
      }
      if (depth === 1 && expectKey && members) {
        if (escaped) members = null;
        else key = utf8(bytes, from, Math.min(i, n));
        expectKey = false;
      }
    } else if (c === 123 || c === 91 /* { [ */) {
      if (depth === 0 && i === start && c === 123) expectKey = true;
      if (++depth > max) max = depth;
    } else if (c === 125 || c === 93 /* } ] */) {
      if (depth === 1) close(i);
      depth--;
    } else if (depth === 1) {
      if (c === 58 /* : */) valueStart = i + 1;
      else if (c === 44 /* , */) {
        close(i);
        expectKey = true;
      }
    }
  }
  return { depth: max, members };
}

/** The UTF-8 text of bytes [from, to). */
export function utf8(bytes: Uint8Array, from: number, to: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', from, to);
}
