// The API key a QuickChart-style JSON body carries, found in its text without parsing it: a
// large body is parsed only for a caller whose key authenticates (routes/quickchart.ts), so an
// anonymous flood of large bodies costs a byte search each, not a JSON parse.
const NAMES = ['"key"', '"api_key"'] as const;
/** Keys are short: a longer string is not one. */
const MAX_KEY_CHARS = 200;
const KEY_VALUE = /^\s*:\s*"([^"\\\x00-\x1f]{1,200})"/;

/**
 * The string value after the last `"key"` or `"api_key"` member name in `bytes` (quickchart-js
 * writes the key last, after the chart, whose data may hold a "key" of its own earlier), or
 * undefined. Only a hint: the caller authenticates it, then the parsed body's own field decides.
 */
export function keyInJsonText(bytes: Buffer): string | undefined {
  let best: { at: number; name: string } | undefined;
  for (const name of NAMES) {
    const at = bytes.lastIndexOf(name);
    if (at >= 0 && (best === undefined || at > best.at)) best = { at, name };
  }
  if (!best) return undefined;
  const from = best.at + best.name.length;
  const tail = bytes.subarray(from, from + MAX_KEY_CHARS + 32).toString('utf8');
  return KEY_VALUE.exec(tail)?.[1];
}
