// The module-level state scripts/module-state.mjs finds in each vendored bundle, where it is not
// simply put back before every render. Everything found is restored by default (renderer-page/
// state.js: the value a binding had when the page had loaded, a Map's or Set's entries, an
// object's own properties); an entry here says why a binding is treated otherwise. Keys: the
// bundle's name in renderer-page/vendor/ and `name@offset` (the binding and where its declaration
// starts in the bundle as npm ships it). scripts/vendor.mjs refuses to build when an entry here
// names a binding the scan no longer finds: a new version of a bundle is read again, not trusted.
// The inventory and what each binding is: docs/decisions/0034-page-state-by-construction.md.

/** @type {Record<string, Record<string, { treat: 'keep', why: string }>>} */
export const MODULE_STATE_AUDIT = {
  'chart.umd.js': {
    'Sa@194092': { treat: 'keep', why: "the subtitle plugin's layout box of each chart, in a WeakMap keyed by the chart: an entry dies with its chart" },
  },
  'v3/chart.js': {
    'Fo@161503': { treat: 'keep', why: "the subtitle plugin's layout box of each chart, in a WeakMap keyed by the chart: an entry dies with its chart" },
  },
};
