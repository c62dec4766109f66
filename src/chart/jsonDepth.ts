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
