// HTML built by tagged templates: every interpolated value is escaped unless it is already Html
// (another template's output), so a page cannot forget to escape a value.

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function esc(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

function piece(v: unknown): string {
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(piece).join('');
  if (v === null || v === undefined || v === false) return '';
  return esc(String(v));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** Text known to be markup (fixed strings of this module's callers, never input). */
export const trusted = (s: string): Html => new Html(s);

export const isoDate = (ms: number | null | undefined): string => (ms == null ? '-' : new Date(ms).toISOString().slice(0, 10));
export const isoMinute = (ms: number | null | undefined): string => (ms == null ? '-' : new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC');
export const num = (n: number): string => n.toLocaleString('en-GB');
export const gbp = (pounds: number): string => `£${pounds.toFixed(2)}`;
