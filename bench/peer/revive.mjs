// Function-string revival for the peer, with the same rules as renderer-page/harness.js, so both
// sides run the same callbacks. Shared by worker.mjs and best.mjs.
const FN_RE = /^\s*function\s*(?:[A-Za-z_$][\w$]*)?\s*\(([^()]*)\)\s*\{([\s\S]*)\}\s*$/;
const ARROW_RE = /^\s*(?:([A-Za-z_$][\w$]*)|\(([^()]*)\))\s*=>\s*([\s\S]*?)\s*$/;

function revive(s) {
  let m = FN_RE.exec(s);
  try {
    if (m) return new Function(m[1], m[2]);
    m = ARROW_RE.exec(s);
    if (!m || !m[3]) return null;
    const params = m[1] !== undefined ? m[1] : m[2];
    const body = m[3];
    if (body.startsWith('{') && body.endsWith('}')) {
      try { return new Function(params, body.slice(1, -1)); } catch { /* an object literal: fall through */ }
    }
    return new Function(params, 'return (' + body + '\n);');
  } catch {
    return null;
  }
}

// Labels and data stay strings (role 'text'); everything else may be a callback.
function childRole(role, key) {
  if (role === 'text') return 'text';
  if (role === 'root') return key === 'data' ? 'data' : null;
  if (role === 'data') return key === 'labels' ? 'text' : key === 'datasets' ? 'datasets' : null;
  if (role === 'datasets') return 'dataset';
  if (role === 'dataset') return key === 'data' || key === 'label' ? 'text' : null;
  return null;
}

export function revived(value, role) {
  if (typeof value === 'string') {
    if (role !== 'text' && (value.includes('function') || value.includes('=>'))) return revive(value) ?? value;
    return value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    // big data arrays hold no callbacks: keep them as parsed
    if (role === 'text') return value;
    return value.map((v, i) => revived(v, childRole(role, i)));
  }
  const out = {};
  for (const k of Object.keys(value)) out[k] = revived(value[k], childRole(role, k));
  return out;
}
