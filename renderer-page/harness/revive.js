// @ts-check
// ---- config copy + function revival ------------------------------------------------------
// `function (a, b) { ... }` / `function name(a) { ... }`
var FN_RE = /^\s*function\s*(?:[A-Za-z_$][\w$]*)?\s*\(([^()]*)\)\s*\{([\s\S]*)\}\s*$/;
// `x => ...`, `(a, b) => ...`, `() => { ... }`
var ARROW_RE = /^\s*(?:([A-Za-z_$][\w$]*)|\(([^()]*)\))\s*=>\s*([\s\S]*?)\s*$/;

// The Function constructor parses the parameter list and the body separately, so a string
// like "function(){}), sideEffect(), (function(){}" cannot run anything at revival time.
// st.impure: set unless pure.js proves the function changes nothing outside its call (then
// the page needs no reset after this render); judged on exactly the text that is compiled.
function revive(s, st) {
  if (s.length > MAX_FUNCTION_CHARS) return null;
  var m = FN_RE.exec(s);
  try {
    if (m) {
      var named = new Function(m[1], m[2]);
      if (!isPure(m[1], m[2], false)) st.impure = true;
      return named;
    }
    m = ARROW_RE.exec(s);
    if (!m || !m[3]) return null;
    var params = m[1] !== undefined ? m[1] : m[2];
    var body = m[3];
    var fn = null;
    var pure = false;
    if (body.charAt(0) === '{' && body.charAt(body.length - 1) === '}') {
      try {
        fn = new Function(params, body.slice(1, -1));
        pure = isPure(params, body.slice(1, -1), false);
      } catch (e) { fn = null; }
    }
    if (!fn) {
      fn = new Function(params, 'return (' + body + '\n);');
      pure = isPure(params, body, true);
    }
    if (!pure) st.impure = true;
    // arrow functions have no `this` of their own: bind it as an arrow written at top level would
    return fn.bind(undefined);
  } catch (e) {
    // written as a function (`function (...) {...}`, `(...) => ...`) but not one: the caller
    // meant code, so the render stops with the path of the string (findString) instead of
    // drawing the text where a callback was wanted
    if (st.badFunction === undefined && (FN_RE.test(s) || (m && m[2] !== undefined))) {
      st.badFunction = s;
      st.badFunctionMessage = shortMessage(e);
    }
    return null;
  }
}

/** The dotted path of the first string equal to `text` in a config, for an error message. */
function findString(value, text, depth) {
  if (value === text) return '';
  if (value === null || typeof value !== 'object' || depth >= MAX_DEPTH) return null;
  var keys = Object.keys(value);
  for (var i = 0; i < keys.length; i++) {
    var sub = findString(value[keys[i]], text, depth + 1);
    if (sub !== null) return (Array.isArray(value) ? '[' + keys[i] + ']' : (depth > 0 ? '.' : '') + keys[i]) + sub;
  }
  return null;
}

// childRole(role, key): where a string is data, never code; src/chart/childRole.ts, the gate's rule,
// put before this module by scripts/vendor.mjs.

// The config was parsed from JSON in this page (or built by the protocol) for this render
// alone, so it is cleaned in place: a copy of a 100,000-point dataset cost 8 ms and its garbage.
// A JavaScript config (st.jsConfig) keeps the functions it built and its strings stay strings.
function cleanConfig(value, depth, st, role) {
  if (typeof value === 'string') {
    if (st.allowFunctions && !st.jsConfig && role !== 'text' && (value.indexOf('function') !== -1 || value.indexOf('=>') !== -1)) {
      var fn = revive(value, st);
      if (fn) {
        st.ranFunctions = true;
        return fn;
      }
    }
    return value;
  }
  if (value === null || typeof value !== 'object') {
    return typeof value === 'function' && !st.jsConfig ? undefined : value;
  }
  if (depth >= MAX_DEPTH) throw new Error('config is nested deeper than ' + MAX_DEPTH + ' levels');
  var i, v, w;
  if (Array.isArray(value)) {
    var n = value.length;
    for (i = 0; i < n; i++) {
      v = value[i];
      if (typeof v !== 'number') {
        w = cleanConfig(v, depth + 1, st, childRole(role, i));
        if (w !== v) value[i] = w;
      }
    }
    return value;
  }
  var keys = Object.keys(value);
  for (i = 0; i < keys.length; i++) {
    var k = keys[i];
    // an own "__proto__" key of a parsed object is plain data, but no Chart.js merge should see it
    if (k === '__proto__') {
      delete value[k];
      continue;
    }
    v = value[k];
    if (typeof v !== 'number') {
      w = cleanConfig(v, depth + 1, st, childRole(role, k));
      if (w !== v) value[k] = w;
    }
  }
  return value;
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
