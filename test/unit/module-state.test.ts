// scripts/module-state.mjs: which bindings of a browser bundle outlive every chart and are written
// after load (the state renderer-page/state.js restores before each render), and that the built
// page scripts hand each of them to the page (scripts/vendor.mjs).
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
// @ts-expect-error: a build script without types
import { scanModuleState } from '../../scripts/module-state.mjs';

interface Found { name: string; written: boolean; writes: string[]; injectable: boolean }
const scan = (src: string): Found[] => scanModuleState(src) as Found[];
const written = (src: string) => scan(src).filter((b) => b.written).map((b) => b.name).sort();

describe('module-level state of a bundle (scripts/module-state.mjs)', () => {
  it('finds what code run after load writes: caches, counters, registries, reassigned bindings', () => {
    const umd = `!function(g,f){g.Lib=f()}(this,(function(){"use strict";
      const cache = new Map(), TABLE = {a: 1};
      let uid = 0, lazy;
      var registry = {};
      const seen = [];
      function get(k){ if(!cache.has(k)) cache.set(k, k.length); lazy || (lazy = TABLE.a); return cache.get(k) }
      function add(id, x){ registry[id] = x; seen.push(id); return uid++ }
      return {get, add, TABLE};
    }));`;
    expect(written(umd)).to.deep.equal(['cache', 'lazy', 'registry', 'seen', 'uid']);
    // TABLE is never written, but code run later reads it and it holds an object: reported, not written
    const table = scan(umd).find((b) => b.name === 'TABLE')!;
    expect(table.written).to.equal(false);
    expect(scan(umd).every((b) => b.injectable)).to.equal(true);
  });

  it('leaves alone what only load writes, and the locals of functions run later', () => {
    const src = `(function(){
      var names = {}; ['a','b'].forEach(function(n){ names[n] = 1 });
      var x = 1; x = 2;
      function f(){ var local = new Map(); local.set(1, 2); let n = 0; n++; return local }
      window.f = f;
    })();`;
    // the forEach callback is a function run at load, but the scan cannot know: it counts as later (restored, harmless)
    expect(written(src)).to.deep.equal(['names']);
  });

  it("sees through a bundler's CommonJS wrapper (rollup's, as in Chart.js 2's bundle with moment)", () => {
    const src = `!function(t,e){t.C=e()}(this,(function(){
      function e(t,e){return t(e={exports:{}},e.exports),e.exports}
      var m = e(function(t, n){ var locales = {}; function define(k, v){ locales[k] = v } t.exports = define; });
      return m;
    }));`;
    expect(written(src)).to.deep.equal(['locales']);
  });

  it('every written binding of the built bundles is handed to the page, the known caches among them', () => {
    const inventory = JSON.parse(readFileSync('renderer-page/vendor/module-state.json', 'utf8')) as Record<string, { treat: string }>;
    const ids = Object.keys(inventory);
    // Chart.js 4 and 3: the option scope keys per chart type and plugin id (keyCache, keysCached)
    for (const id of ['chart.umd.js:pn@95693', 'chart.umd.js:mn@95693', 'v3/chart.js:tn@92191', 'v3/chart.js:en@92191']) expect(ids).to.include(id);
    // chartjs-plugin-annotation's label sizes (3.x and 1.x), treemap's, moment's global locale
    for (const id of ['chartjs-plugin-annotation.js:j@3754', 'v3/chartjs-plugin-annotation.js:k@3448', 'chartjs-chart-treemap.js:P@5875', 'moment.js:ct@15684']) expect(ids).to.include(id);
    for (const [id, e] of Object.entries(inventory)) {
      const [file] = id.split(':');
      const text = readFileSync(`renderer-page/vendor/${file}`, 'utf8');
      expect(text, id).to.include(`__chartshotState(${JSON.stringify(id)},"${e.treat}"`);
    }
  });
});
