// @ts-check
// ---- the page's shared state: a digest taken at load, compared after every render --------------
// What one render could leave for the next: the bundles' module-level state is put back before
// every render (state.js); everything else every render shares is compared after each render
// with what the loaded page had, and any difference resets the page before anyone else uses it
// (PageResult.resetReason 'page_state'), whatever the config named. Compared:
// - every object reachable from what the libraries put on the window (Chart, its defaults,
//   overrides, registry, helpers, element and controller classes and prototypes, the plugins,
//   the adapters...) and from the realm's and the platform's shared prototypes (Object.prototype,
//   Array.prototype, Function.prototype, CanvasRenderingContext2D.prototype...): the same own
//   keys, each with the same value (by identity) or the same getter and setter;
// - the window's own names and what the libraries' names hold, window.name, cookies and storage;
// - the document: any node, attribute or text changed (a MutationObserver), its own keys, its
//   style rules, its fonts, its URL; the event handlers of the window and the document;
// - Chart.js's chart instances: none may stay registered.
// Objects that state.js puts back anyway (caches, registries a render fills) are left out.
// Why: docs/decisions/0038-page-state-digest.md.

var platformNames = /** @type {string[] | undefined} */ (/** @type {any} */ (window).__chartshotPlatformNames);
try {
  delete (/** @type {any} */ (window).__chartshotPlatformNames);
} catch (e) { /* configurable: always deleted */ }

/** Objects watched, each with its own keys and, per key, the value (or getter and setter) at load. */
// (kept in one holder object, never replaced: the tests' heap snapshots describe a closure
// variable by its value, and V8's description of a large array's elements is not stable)
var digest = { objects: /** @type {Array<object>} */ ([]), keys: /** @type {Array<Array<string | symbol>>} */ ([]), values: /** @type {Array<Array<unknown>>} */ ([]) };
/** At most this many objects are watched: a library's data table (a world atlas) is not walked whole. */
var MAX_WATCHED = 40000;

var mutationObserver = /** @type {MutationObserver | null} */ (null);
/** Set by the observer when it is handed records (a change caller code made before it returned
 *  to the event loop); takeRecords() has the ones not handed yet. */
var domChanged = false;
var domWhat = '';
var takeRecords = MutationObserver.prototype.takeRecords;
var storageLength = getter(Storage.prototype, 'length');
var cookieGetter = getter(Document.prototype, 'cookie');
var windowNameGetter = /** @type {Function} */ (/** @type {PropertyDescriptor} */ (getDescriptor(window, 'name')).get);
var fontsGetter = getter(Document.prototype, 'fonts');
var fontSetSize = getter(FontFaceSet.prototype, 'size');
var styleSheetsGetter = getter(Document.prototype, 'styleSheets');
var adoptedGetter = getter(Document.prototype, 'adoptedStyleSheets');
var sheetRules = getter(CSSStyleSheet.prototype, 'cssRules');
var listLength = getter(StyleSheetList.prototype, 'length');
var rulesLength = getter(CSSRuleList.prototype, 'length');
var styleSheetItem = StyleSheetList.prototype.item;
var hrefGetter = /** @type {Function} */ (/** @type {PropertyDescriptor} */ (getDescriptor(location, 'href')).get);
var isArrayView = ArrayBuffer.isView;
var sameValue = Object.is;
var getDescriptors = Object.getOwnPropertyDescriptors;
var localStore = (function () { try { return window.localStorage; } catch (e) { return null; } })();
var sessionStore = (function () { try { return window.sessionStorage; } catch (e) { return null; } })();
/** The window's and the document's event handler properties (onerror, onmessage...), as getters. */
var handlers = /** @type {Array<{ target: unknown, get: Function, value: unknown }>} */ ([]);
/** The shared state as the loaded page has it. */
var baseline = { globals: -1, documentKeys: -1, fonts: -1, rules: -1, href: '', ready: false };
/** Time of the last digest taken at load, and the objects it watched (bench/page-state.ts reads neither). */
var lockStats = { ms: 0, objects: 0 };

function cookies() {
  try {
    return apply(cookieGetter, document, []);
  } catch (e) {
    return '';
  }
}

function cssRuleCount() {
  var sheets = apply(styleSheetsGetter, document, []);
  var n = apply(listLength, sheets, []);
  var total = n;
  for (var i = 0; i < n; i++) {
    try {
      total += apply(rulesLength, apply(sheetRules, apply(styleSheetItem, sheets, [i]), []), []);
    } catch (e) {
      total += 1e6;
    }
  }
  return total;
}

/** A node, the window, a context: a platform instance, not a shared definition (the document
 *  and its nodes are watched by the MutationObserver instead). */
function isPlatformInstance(/** @type {any} */ x) {
  return x === window || x instanceof Node || x instanceof CanvasRenderingContext2D || x instanceof CSSStyleDeclaration || isArrayView(x);
}

/** The names the libraries and page scripts put on the window, each followed by its value at load. */
var libraryGlobals = /** @type {unknown[]} */ ([]);

/** A key recorded as an accessor: compared by its getter and setter. */
var ACCESSOR = {};

/**
 * Records every object reachable from roots through own data properties and prototypes, but
 * those in `skip`; those in `through` are not recorded (state.js puts their own properties back
 * before every render, and a render fills some by design) but what they hold at load is.
 */
function watchAll(/** @type {unknown[]} */ roots, /** @type {Set<unknown>} */ skip, /** @type {Set<unknown>} */ through) {
  var seen = new Set();
  var stack = roots.slice();
  while (stack.length && digest.objects.length < MAX_WATCHED) {
    var o = stack.pop();
    if (o === null || (typeof o !== 'object' && typeof o !== 'function')) continue;
    if (seen.has(o) || skip.has(o)) continue;
    seen.add(o);
    if (isPlatformInstance(o)) continue;
    var keys = ownKeys(o);
    var all = getDescriptors(o);
    if (through.has(o)) {
      for (var t = 0; t < keys.length; t++) {
        var td = all[/** @type {any} */ (keys[t])];
        if (td && apply(hasOwn, td, ['value'])) stack.push(td.value);
      }
      var tp = getPrototype(o);
      if (tp !== null) stack.push(tp);
      continue;
    }
    var values = [];
    for (var i = 0; i < keys.length; i++) {
      var d = all[/** @type {any} */ (keys[i])];
      if (d && apply(hasOwn, d, ['value'])) {
        values.push(d.value, undefined);
        stack.push(d.value);
      } else {
        values.push(ACCESSOR, d);
      }
    }
    digest.objects.push(o);
    digest.keys.push(keys);
    digest.values.push(values);
    var p = getPrototype(o);
    if (p !== null) stack.push(p);
  }
}

/**
 * True when a watched object's own keys or their values differ from load. A data property is
 * read directly (a getter in its place could only come from caller code not proven pure, whose
 * render resets the page without this check); an accessor is compared by its functions.
 */
function sharedObjectsChanged() {
  var objects = digest.objects;
  for (var i = 0; i < objects.length; i++) {
    var o = /** @type {any} */ (objects[i]);
    var keys = digest.keys[i];
    var current = ownKeys(o);
    if (current.length !== keys.length) return noteChange(o, 'keys (' + (current.length > keys.length ? 'added ' + String(current[current.length - 1]) : 'removed') + ')');
    var values = digest.values[i];
    for (var k = 0; k < keys.length; k++) {
      var was = values[2 * k];
      if (was !== ACCESSOR) {
        if (!sameValue(o[keys[k]], was)) return noteChange(o, keys[k]);
        continue;
      }
      var d = getDescriptor(o, keys[k]);
      var at = /** @type {PropertyDescriptor | undefined} */ (values[2 * k + 1]);
      if (!d || !at || d.get !== at.get || d.set !== at.set || apply(hasOwn, d, ['value'])) return noteChange(o, keys[k]);
    }
  }
  return false;
}

/** What the last check found changed, for the tests (chartshot.lastChange): a property's name
 *  and what holds it, never a value. */
var lastChange = '';
function noteChange(/** @type {any} */ o, /** @type {unknown} */ key) {
  var holder = 'an object';
  try {
    holder = typeof o === 'function' ? 'function ' + String(o.name) : 'an object of ' + String(o.constructor && o.constructor.name);
  } catch (e) { /* a getter refused */ }
  lastChange = String(key) + ' of ' + holder;
  return true;
}

/**
 * 'page_state' when the page's shared state differs from the loaded page's, else null. Saved
 * references only: caller code has run. Any doubt (the check itself fails) is a difference.
 * @returns {'page_state' | null}
 */
function whatChanged() {
  if (!baseline.ready) return 'page_state';
  lastChange = '';
  try {
    if (ownKeys(window).length !== baseline.globals) return 'page_state';
    if (apply(windowNameGetter, window, []) !== '') return 'page_state';
    if (cookies() !== '') return 'page_state';
    if ((localStore && apply(storageLength, localStore, []) !== 0) || (sessionStore && apply(storageLength, sessionStore, []) !== 0)) return 'page_state';
    if (domChanged) lastChange = 'the document: ' + domWhat;
    if (domChanged || mutationObserver === null || apply(takeRecords, mutationObserver, []).length !== 0) return 'page_state';
    if (ownKeys(document).length !== baseline.documentKeys) return 'page_state';
    if (apply(adoptedGetter, document, []).length !== 0 || cssRuleCount() !== baseline.rules) return 'page_state';
    if (apply(hrefGetter, location, []) !== baseline.href) return 'page_state';
    if (apply(fontSetSize, apply(fontsGetter, document, []), []) !== baseline.fonts) return 'page_state';
    for (var i = 0; i < handlers.length; i++) if (apply(handlers[i].get, handlers[i].target, []) !== handlers[i].value) return 'page_state';
    // every chart is destroyed after its render: none may stay registered
    var instances = Chart.instances;
    if (instances && ownKeys(instances).length !== 0) return 'page_state';
    for (var g = 0; g < libraryGlobals.length; g += 2) {
      var gd = getDescriptor(window, /** @type {string} */ (libraryGlobals[g]));
      if (!gd || !sameValue(gd.value, libraryGlobals[g + 1])) {
        lastChange = 'the global ' + String(libraryGlobals[g]);
        return 'page_state';
      }
    }
    if (sharedObjectsChanged()) return 'page_state';
    return null;
  } catch (e) {
    return 'page_state';
  }
}

/** Takes the document as it is now as the loaded one: at init(), before any caller code runs. */
function settleDocument() {
  if (mutationObserver !== null) apply(takeRecords, mutationObserver, []);
  domChanged = false;
  domWhat = '';
}

/**
 * Takes the digest whatChanged() compares with: once, at the end of the harness's load, after
 * the module state is sealed. False when it cannot (the page is then not ready).
 * @returns {boolean}
 */
function takeBaseline() {
  if (!platformNames || !ModuleState) return false;
  var t = now();
  var skip = new Set();
  // what state.js puts back before every render (a render fills a cache by design): what it held
  // at load is watched, not its own keys
  var through = new Set();
  var entries = ModuleState.list();
  for (var i = 0; i < entries.length; i++) {
    var v = entries[i].get();
    if (v !== null && (typeof v === 'object' || typeof v === 'function') && entries[i].treat === 'restore') through.add(v);
  }
  // Chart.js 2 keeps its charts and its running animations on Chart itself (checked empty below)
  if (Chart.instances) skip.add(Chart.instances);
  if (MAJOR === 2 && Chart.animationService) skip.add(Chart.animationService.animations);
  // a world atlas's coordinates are data no code writes: its top level only
  var topologies = /** @type {any} */ (window).ChartshotTopologies;
  // the realm's prototypes and namespaces a write would reach every later render through, and
  // the canvas's: the rest of the platform's interfaces are no library's and no pure function's to write
  var w = /** @type {any} */ (window);
  var roots = [Object, Function, Array, String, Number, Boolean, Symbol, Date, RegExp, Error, TypeError, RangeError, Promise, Map,
    Set, WeakMap, WeakSet, JSON, Math, Reflect, Intl, w.Iterator, getPrototype(Uint8Array), Uint8Array, Float32Array, ArrayBuffer,
    getPrototype([][Symbol.iterator]()), getPrototype(getPrototype([][Symbol.iterator]())), getPrototype(function* () {}),
    HTMLCanvasElement, CanvasRenderingContext2D, w.OffscreenCanvas, w.OffscreenCanvasRenderingContext2D, Path2D, CanvasGradient,
    CanvasPattern, ImageData, DOMMatrix, w.FontFace, Image, HTMLImageElement, TextMetrics, EventTarget].filter(function (r) { return !!r; });
  var platform = new Set(platformNames);
  var names = Object.getOwnPropertyNames(window);
  for (var j = 0; j < names.length; j++) {
    if (platform.has(names[j])) continue;
    var d = getDescriptor(window, names[j]);
    if (!d || !apply(hasOwn, d, ['value'])) continue;
    if (d.value === topologies && topologies) {
      skip.add(topologies);
      watchAll([topologies], new Set(ownKeys(topologies).map(function (k) { return topologies[k]; })), through);
      continue;
    }
    roots.push(d.value);
    libraryGlobals.push(names[j], d.value);
  }
  watchAll(roots, skip, through);
  handlers = [];
  var targets = [window, document];
  for (var n = 0; n < targets.length; n++) {
    for (var o = /** @type {any} */ (targets[n]); o !== null && o !== Object.prototype; o = getPrototype(o)) {
      var keys = Object.getOwnPropertyNames(o);
      for (var k = 0; k < keys.length; k++) {
        if (apply(strIndexOf, keys[k], ['on']) !== 0) continue;
        var hd = getDescriptor(o, keys[k]);
        if (hd && hd.get) handlers.push({ target: targets[n], get: hd.get, value: apply(hd.get, targets[n], []) });
      }
    }
  }
  mutationObserver = new MutationObserver(function (records) {
    if (!domChanged) domWhat = records.length ? records[0].type + ' ' + records[0].target.nodeName + ' ' + String(records[0].attributeName) : '';
    domChanged = true;
  });
  mutationObserver.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  baseline.globals = ownKeys(window).length;
  baseline.documentKeys = ownKeys(document).length;
  baseline.fonts = apply(fontSetSize, apply(fontsGetter, document, []), []);
  baseline.rules = cssRuleCount();
  baseline.href = apply(hrefGetter, location, []);
  baseline.ready = true;
  lockStats.ms = now() - t;
  lockStats.objects = digest.objects.length;
  return whatChanged() === null;
}
