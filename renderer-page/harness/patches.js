// @ts-check
// ---- text patches ------------------------------------------------------------------------
// Template overrides, set after cleanConfig (and after a JavaScript config was evaluated):
// whoever holds a chart's URL sends them, so they are data only, never revived into code.
// Objects and arrays on the way are created; an array is padded with empty objects.
function patchValue(v) {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (Array.isArray(v)) {
    return v.map(function (x) {
      if (x === null || typeof x === 'string' || typeof x === 'number') return x;
      throw new Error('a text patch holds only text and numbers');
    });
  }
  throw new Error('a text patch holds only text and numbers');
}
function applyPatches(cfg, patches) {
  if (!Array.isArray(patches) || patches.length > MAX_PATCHES) throw new Error('textPatches must be a list of at most ' + MAX_PATCHES);
  for (var i = 0; i < patches.length; i++) {
    var p = patches[i];
    var path = isObject(p) ? p.path : null;
    if (!Array.isArray(path) || path.length < 1 || path.length > MAX_PATCH_KEYS) throw new Error('a text patch needs a path of 1-' + MAX_PATCH_KEYS + ' keys');
    var value = patchValue(p.value);
    var at = cfg;
    for (var j = 0; j < path.length; j++) {
      var k = path[j];
      var index = typeof k === 'number' && Number.isInteger(k) && k >= 0 && k < MAX_PATCH_INDEX;
      if (!index && (typeof k !== 'string' || k === '__proto__' || k === 'constructor' || k === 'prototype')) throw new Error('a text patch path holds names and indexes only');
      if (index !== Array.isArray(at)) throw new Error('a text patch path does not fit the config');
      if (index) while (at.length < k) at.push({});
      if (j === path.length - 1) {
        at[k] = value;
        break;
      }
      var next = at[k];
      var wantList = typeof path[j + 1] === 'number';
      if (wantList ? !Array.isArray(next) : !isObject(next)) at[k] = next = wantList ? [] : {};
      at = next;
    }
  }
}
