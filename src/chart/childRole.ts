// Where a string of a config is data, never code: labels, dataset labels and data points stay
// strings even when they look like an arrow ("Revenue => Profit"). The one rule for both sides:
// the gate (functionStrings.ts) checks as code exactly the strings the page would revive, and the
// page (renderer-page/harness/revive.js) receives this function's own text, put into the harness
// by the build (scripts/vendor.mjs). Keep it self-contained: no imports, no names from outside.

/** root -> data -> datasets -> dataset -> text (nothing below text is code). */
export type Role = 'root' | 'data' | 'datasets' | 'dataset' | 'text' | null;

/** The role of `key` under a value of role `role`. */
export function childRole(role: Role, key: string | number): Role {
  if (role === 'text') return 'text';
  if (role === 'root') return key === 'data' ? 'data' : null;
  if (role === 'data') return key === 'labels' ? 'text' : key === 'datasets' ? 'datasets' : null;
  if (role === 'datasets') return 'dataset';
  if (role === 'dataset') return key === 'data' || key === 'label' ? 'text' : null;
  return null;
}
