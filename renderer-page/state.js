// The page's module-level state, put back as it was at load before every render. scripts/vendor.mjs
// finds, in every bundle the page loads, each binding of a scope that runs once that code running
// later writes (a cache, a counter, a registry; scripts/module-state.mjs) and adds after its
// declaration a call of __chartshotState with a reader (and a writer for a let or var); the page's
// own scripts make the same call by hand. The harness seals the state once the page has loaded and
// restores it at the start of every render, whatever the config says: nothing one render leaves in
// those bindings reaches the next one. Why: docs/decisions/0034-page-state-by-construction.md.
// Loaded right after lockdown.js, before any bundle.
(function () {
  'use strict';
  var entries = [];
  var sealed = false;
  var getProto = Object.getPrototypeOf;
  var ownKeys = Reflect.ownKeys;
  var apply = Reflect.apply;
  var getDescriptor = Object.getOwnPropertyDescriptor;
  var defineProperty = Object.defineProperty;
  var hasOwn = Object.prototype.hasOwnProperty;
  var MapProto = Map.prototype;
  var SetProto = Set.prototype;
  var WeakMapProto = WeakMap.prototype;
  var WeakSetProto = WeakSet.prototype;
  var mapSize = getDescriptor(MapProto, 'size').get;
  var setSize = getDescriptor(SetProto, 'size').get;
  var mapEntries = MapProto.entries;
  var setValues = SetProto.values;
  var mapClear = MapProto.clear;
  var setClear = SetProto.clear;
  var mapSet = MapProto.set;
  var setAdd = SetProto.add;
  var iterNext = getProto(new Map().entries()).next;
  var setIterNext = getProto(new Set().values()).next;
  var WeakMapCtor = WeakMap;
  var WeakSetCtor = WeakSet;
  var createObject = Object.create;

  /** @param {string} id @param {string} treat @param {() => unknown} get @param {((v: unknown) => void) | undefined} set */
  function register(id, treat, get, set) {
    if (sealed) return;
    entries.push({ id: id, treat: treat, get: get, set: set, value: undefined, contents: null });
  }

  function kindOf(v) {
    if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return 'value';
    var p = getProto(v);
    if (p === MapProto) return 'map';
    if (p === SetProto) return 'set';
    if (p === WeakMapProto) return 'weakmap';
    if (p === WeakSetProto) return 'weakset';
    return 'object';
  }

  function listMap(m) {
    var out = [];
    var it = apply(mapEntries, m, []);
    for (var r = apply(iterNext, it, []); !r.done; r = apply(iterNext, it, [])) out.push(r.value[0], r.value[1]);
    return out;
  }
  function listSet(s) {
    var out = [];
    var it = apply(setValues, s, []);
    for (var r = apply(setIterNext, it, []); !r.done; r = apply(setIterNext, it, [])) out.push(r.value);
    return out;
  }

  /** What an object holds, to put back: a Map's or Set's entries, an object's own data properties
   *  (and the entries of a Map or Set one of them holds: a singleton's registry). */
  function contentsOf(v) {
    var kind = kindOf(v);
    if (kind === 'map') return { kind: kind, list: listMap(v) };
    if (kind === 'set') return { kind: kind, list: listSet(v) };
    if (kind !== 'object') return null;
    var keys = ownKeys(v);
    var props = [];
    var inner = [];
    for (var i = 0; i < keys.length; i++) {
      var d = getDescriptor(v, keys[i]);
      props.push(keys[i], d);
      if (d && apply(hasOwn, d, ['value'])) {
        var k = kindOf(d.value);
        if (k === 'map' || k === 'set') inner.push(d.value, contentsOf(d.value));
      }
    }
    return { kind: kind, keys: keys.length, props: props, inner: inner };
  }

  function restoreCollection(v, c) {
    var i;
    if (c.kind === 'map') {
      var size = apply(mapSize, v, []);
      if (size === 0 && c.list.length === 0) return;
      var now = listMap(v);
      if (now.length === c.list.length) {
        for (i = 0; i < now.length && now[i] === c.list[i]; i++);
        if (i === now.length) return;
      }
      apply(mapClear, v, []);
      for (i = 0; i < c.list.length; i += 2) apply(mapSet, v, [c.list[i], c.list[i + 1]]);
    } else {
      var n = apply(setSize, v, []);
      if (n === 0 && c.list.length === 0) return;
      var items = listSet(v);
      if (items.length === c.list.length) {
        for (i = 0; i < items.length && items[i] === c.list[i]; i++);
        if (i === items.length) return;
      }
      apply(setClear, v, []);
      for (i = 0; i < c.list.length; i++) apply(setAdd, v, [c.list[i]]);
    }
  }

  function sameDescriptor(a, b) {
    return !!a && !!b && a.value === b.value && a.get === b.get && a.set === b.set && a.writable === b.writable && a.enumerable === b.enumerable && a.configurable === b.configurable;
  }

  function restoreObject(v, c) {
    var keys = ownKeys(v);
    var i;
    var changed = keys.length !== c.keys;
    for (i = 0; !changed && i < c.props.length; i += 2) changed = !sameDescriptor(getDescriptor(v, c.props[i]), c.props[i + 1]);
    if (changed) {
      var wanted = createObject(null);
      for (i = 0; i < c.props.length; i += 2) wanted[c.props[i]] = true;
      for (i = 0; i < keys.length; i++) if (!(keys[i] in wanted)) delete v[keys[i]];
      for (i = 0; i < c.props.length; i += 2) defineProperty(v, c.props[i], c.props[i + 1]);
    }
    for (i = 0; i < c.inner.length; i += 2) restoreCollection(c.inner[i], c.inner[i + 1]);
  }

  /** Takes the state as the loaded page has it: what restore() puts back. */
  function seal() {
    sealed = true;
    for (var i = 0; i < entries.length; i++) {
      var e = entries[i];
      if (e.treat !== 'restore') continue;
      e.value = e.get();
      var kind = kindOf(e.value);
      // a WeakMap or WeakSet cannot be listed: one in a let or var starts empty at each render;
      // a const one is listed as kept (scripts/module-state-audit.mjs says why)
      if ((kind === 'weakmap' || kind === 'weakset') && !e.set) throw new Error('page state ' + e.id + ': a const ' + kind + ' cannot be restored');
      e.contents = contentsOf(e.value);
    }
    return entries.length;
  }

  /** Puts every binding back as seal() found it. False when one could not be (caller code made a
   *  property of it non-configurable): the page must then be reset. */
  function restore() {
    var ok = true;
    for (var i = 0; i < entries.length; i++) {
      var e = entries[i];
      if (e.treat !== 'restore') continue;
      try {
        restoreEntry(e);
      } catch (err) {
        ok = false;
      }
    }
    return ok;
  }

  function restoreEntry(e) {
    var kind = kindOf(e.value);
    if (kind === 'weakmap') return e.set(new WeakMapCtor());
    if (kind === 'weakset') return e.set(new WeakSetCtor());
    if (e.set && e.get() !== e.value) e.set(e.value);
    var c = e.contents;
    if (c === null) return;
    if (c.kind === 'map' || c.kind === 'set') restoreCollection(e.value, c);
    else restoreObject(e.value, c);
  }

  /** Every registered binding: id, how it is treated, its reader. */
  function list() {
    var out = [];
    for (var i = 0; i < entries.length; i++) out.push({ id: entries[i].id, treat: entries[i].treat, get: entries[i].get });
    return out;
  }

  defineProperty(window, '__chartshotState', { value: register, writable: false, configurable: true, enumerable: false });
  // taken (and removed from the window) by the harness when the page has loaded
  defineProperty(window, 'ChartshotModuleState', { value: Object.freeze({ seal: seal, restore: restore, list: list }), writable: false, configurable: true, enumerable: false });
})();
