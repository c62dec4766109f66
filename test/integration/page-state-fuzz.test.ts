// A seeded fuzz of data-only attacker configs along every option route each bundled plugin, chart
// type and element declares, read from the page itself (so a plugin added to a page is fuzzed
// without a change here): a plugin's id (options.plugins.<id>), its additionalOptionScopes (the
// root of options for chartjs-plugin-annotation: options.annotations), its id at dataset level
// (datalabels reads a dataset's datalabels), each controller's dataset options and each element's
// options (options.elements.<id>). Values are shaped by the defaults (labels, fonts with odd line
// heights, ['a','b'] against 'a,b', resolver keys such as _fallback and __proto__). After each
// attacker render on the one shared page, victims with labels and annotations that show any
// poisoning must be byte for byte what a clean page draws, in PNG and SVG, on Chart.js 2, 3 and 4.
// What holds this: every bundle's module state restored before each render (state.js) and the
// page-state digest after it (page-state.js, decision 38). A cache whose first writer decides is
// poisoned only by an attacker before the victim on a page, so attackers run in batches on a
// reloaded page, the victims after each batch; a batch that poisons is replayed one attacker at a
// time to name it. Seeded (FUZZ_SEED, default 1, in every failure message).
import { expect } from 'chai';
import { Renderer, type PageRequest } from '../../src/render/renderer.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { PLUGIN_EXAMPLES } from '../../src/chart/pluginExamples.js';
import { rng } from '../../bench/corpus/gen.js';

const SEED = Number(process.env.FUZZ_SEED ?? 1);
/** Attackers per Chart.js version at most (each route once, then the plugins' routes twice more). */
const MAX_ATTACKERS = 150;
/** Attackers on one page before the victims are checked (the page is reloaded before each batch). */
const BATCH = 6;

type Version = 2 | 3 | 4;
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Where an attacker puts generated options, and the defaults that shape them. */
interface Route {
  name: string;
  /** 'options.<path>' ('' is the root of options), 'dataset.<key>' or 'type' (a chart type's dataset options). */
  at: string;
  defaults: Json;
  /** For 'type': the chart type. */
  type?: string;
  /** Entries of an empty collection (annotations: {}): each generated from one of these. */
  entries?: Json[];
}

/** Runs in the page: what each registered plugin, controller and element declares, as data. */
function declared(): { plugins: Array<{ id: string; defaults: Json; scopes: string[] }>; controllers: Array<{ id: string; defaults: Json }>; elements: Array<{ id: string; defaults: Json }>; extra: Json } {
  const w = window as unknown as { Chart: any };
  const C = w.Chart;
  const snap = (v: unknown, d: number): Json => {
    if (typeof v === 'function') return 'fn';
    if (v === undefined || v === null || d > 4) return null;
    if (Array.isArray(v)) return v.slice(0, 3).map((x) => snap(x, d + 1));
    if (typeof v === 'object') {
      const o: Record<string, Json> = {};
      for (const k of Object.keys(v).slice(0, 40)) {
        try {
          o[k] = snap((v as Record<string, unknown>)[k], d + 1);
        } catch {
          /* a getter that needs a chart */
        }
      }
      return o;
    }
    return v as Json;
  };
  if (C.registry) {
    const items = (r: { items: Record<string, any> }) => Object.values(r.items);
    return {
      // a key a plugin only describes (annotation's annotations: _allKeys, _fallback) is an empty collection
      plugins: items(C.registry.plugins).map((p) => ({
        id: p.id,
        defaults: { ...Object.fromEntries(Object.keys(p.descriptors ?? {}).filter((k) => !k.startsWith('_')).map((k) => [k, {}])), ...(snap(C.defaults.plugins[p.id] ?? p.defaults, 0) as object) },
        scopes: p.additionalOptionScopes ?? [],
      })),
      controllers: items(C.registry.controllers).map((c) => ({ id: c.id, defaults: snap(c.defaults, 0) })),
      elements: items(C.registry.elements).map((e) => ({ id: e.id, defaults: snap(e.defaults, 0) })),
      extra: null,
    };
  }
  const g = C.defaults.global;
  return {
    plugins: C.plugins.getAll().filter((p: any) => p.id).map((p: any) => ({ id: p.id, defaults: snap(g.plugins[p.id] ?? {}, 0), scopes: [] })),
    controllers: Object.keys(C.controllers).map((t) => ({ id: t, defaults: snap(C.defaults[t] ?? {}, 0) })),
    elements: Object.keys(g.elements).map((id) => ({ id, defaults: snap(g.elements[id], 0) })),
    // Chart.js 2's annotation plugin has no id: it reads options.annotation, its defaults on Chart.Annotation
    extra: C.Annotation ? snap({ ...C.Annotation.defaults, annotations: Object.keys(C.Annotation.types).map((type) => ({ type, mode: 'horizontal', scaleID: 'y-axis-0', value: 2, label: C.Annotation.labelDefaults })) }, 0) : null,
  };
}

function routesOf(d: ReturnType<typeof declared>): Route[] {
  const routes: Route[] = [];
  const elementDefaults = new Map(d.elements.map((e) => [e.id, e.defaults]));
  for (const p of d.plugins) {
    // a plugin's own elements (annotation's lineAnnotation, labelAnnotation...) make its collections' entries
    const own = d.elements.filter((e) => e.id.toLowerCase().includes(p.id.toLowerCase()) && e.id !== p.id);
    const entries = own.map((e) => ({ ...(e.defaults as Record<string, Json>), type: e.id.slice(0, e.id.toLowerCase().indexOf(p.id.toLowerCase())) }));
    routes.push({ name: `plugin ${p.id}`, at: `options.plugins.${p.id}`, defaults: p.defaults, entries });
    for (const s of p.scopes) routes.push({ name: `plugin ${p.id} scope '${s}'`, at: s === '' ? 'options' : `options.${s}`, defaults: p.defaults, entries });
    routes.push({ name: `plugin ${p.id} on a dataset`, at: `dataset.${p.id}`, defaults: p.defaults, entries });
  }
  if (d.extra) routes.push({ name: "Chart.js 2's annotation (options.annotation)", at: 'options.annotation', defaults: d.extra });
  for (const c of d.controllers) routes.push({ name: `type ${c.id}`, at: 'type', type: c.id, defaults: c.defaults });
  for (const [id, defaults] of elementDefaults) routes.push({ name: `element ${id}`, at: `options.elements.${id}`, defaults });
  return routes;
}

const NUMBERS: Json[] = [0, 1, -1, 0.5, 3, 6, 12, 30, 144, '30px', '12', null];
const STRINGS: Json[] = ['Target', 'Revenue', 'Q1', 'a,b', ['a', 'b'], ['Target', 'x'], '', 'bold', '#111', 'rgba(0,0,0,0.9)', 'center', 'start', 'x'.repeat(30)];
/** Shapes that poisoned before, with the victims' texts: a label whose measured size a page-wide
 *  cache kept (keyed by text and font without the line height; ['a','b'] as 'a,b'). */
const OBJECTS: Json[] = [
  { display: true, enabled: true, content: 'Target', font: { lineHeight: 6 }, backgroundColor: '#111' },
  { type: 'label', xValue: 1, yValue: 10, content: 'Target', font: { lineHeight: 0.3 }, backgroundColor: '#111' },
  { type: 'label', xValue: 1, yValue: 16, content: 'a,b', font: { lineHeight: 4 } },
  { type: 'line', yMin: 3, yMax: 3, label: { display: true, enabled: true, content: 'Target', font: { lineHeight: 6 }, backgroundColor: '#111' } },
  { lineHeight: 6 },
  { size: 30, lineHeight: 6, family: 'serif', weight: 'bold' },
  { display: true, text: 'Target', font: { lineHeight: 5 }, labels: { font: { lineHeight: 5 } } },
  { stamp: 1, toString: 'x', valueOf: 1 },
];
/** Keys the option resolver or a merge treats specially. */
const SPECIAL_KEYS = ['__proto__', 'constructor', 'prototype', '_fallback', '_scriptable', '_indexable', '_allKeys', 'override', 'datasets', 'id'];

function generator(seed: number) {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const put = (o: Record<string, Json>, k: string, v: Json) => Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  const leaf = (): Json => pick([...NUMBERS, ...STRINGS, ...OBJECTS, true, false]);
  function gen(d: Json, depth: number, entries?: Json[]): Json {
    if (depth > 5 || r() < 0.08) return leaf();
    if (d === 'fn' || d === null) return leaf();
    if (typeof d === 'number') return r() < 0.3 ? d : pick(NUMBERS);
    if (typeof d === 'string') return r() < 0.5 ? d : pick(STRINGS);
    if (typeof d === 'boolean') return r() < 0.7 ? true : pick([false, 'true', 0]);
    if (Array.isArray(d)) return d.length ? d.map((x) => gen(x, depth + 1)) : collection(entries, depth, true);
    const keys = Object.keys(d);
    if (keys.length === 0) return collection(entries, depth, false);
    const o: Record<string, Json> = {};
    // an empty collection (what a plugin draws: annotations) is always filled, other keys now and then
    const isCollection = (v: Json) => (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && v !== null && Object.keys(v).length === 0);
    for (const k of keys) if (isCollection(d[k]!) || r() < 0.6) put(o, k, k === 'type' && r() < 0.9 ? d[k]! : gen(d[k]!, depth + 1, entries));
    // a known poisoning shape mutated into the node now and then
    if (r() < 0.25) for (const [k, v] of Object.entries((r() < 0.5 ? pick(OBJECTS) : gen(pick(OBJECTS), depth + 1)) as Record<string, Json>)) put(o, k, v);
    if (r() < 0.3) put(o, pick(SPECIAL_KEYS), pick<Json>([{ stamp: 1, display: true }, { prototype: { stamp: 1 } }, 'plugins.title', true, ['']]));
    return o;
  }
  function collection(entries: Json[] | undefined, depth: number, array: boolean): Json {
    const n = 1 + Math.floor(r() * 3);
    // an entry shaped by the plugin's own element defaults, a known poisoning shape, or one mutated
    const items = Array.from({ length: n }, () => {
      const x = r();
      return x < 0.3 && entries?.length ? gen(pick(entries), depth + 1) : x < 0.8 ? pick(OBJECTS) : gen(pick(OBJECTS), depth + 1);
    });
    return array ? items : Object.fromEntries(items.map((v, i) => [pick(['Target', 't', `a${i}`]) + i, v]));
  }
  return { r, pick, gen };
}

/** A chart of the route's type (its plugin example's data where the type has one), with the generated options placed on the route. */
function attacker(route: Route, g: ReturnType<typeof generator>, version: Version): Record<string, unknown> {
  const type = route.type ?? g.pick(['bar', 'line', 'doughnut']);
  const example = version !== 2 ? PLUGIN_EXAMPLES.find((e) => e.type === type) : undefined;
  const config = structuredClone(example?.config ?? { type, data: { labels: ['Q1', 'Q2', 'Q3'], datasets: [{ label: 'Revenue', data: [12, 19, 7] }] } }) as Record<string, any>;
  config.options ??= {};
  const made = g.gen(route.defaults, 0, route.entries);
  const ds = config.data.datasets[0];
  if (route.at === 'type') Object.assign(ds, made);
  else if (route.at.startsWith('dataset.')) ds[route.at.slice('dataset.'.length)] = made;
  else {
    const path = route.at.split('.').slice(1);
    let at = config.options;
    for (const k of path.slice(0, -1)) at = at[k] ??= {};
    if (path.length === 0) Object.assign(config.options, made);
    else at[path[path.length - 1]!] = made;
  }
  return config;
}

/** What another caller draws: labels, a title, data labels and an annotation label that show poisoning. */
function victims(version: Version): Array<Record<string, unknown>> {
  const target = version === 2
    ? { annotation: { annotations: [{ type: 'line', mode: 'horizontal', scaleID: 'y-axis-0', value: 10, borderColor: 'red', label: { enabled: true, content: 'Target' } }] } }
    : { plugins: { annotation: { annotations: { t: { type: 'line', yMin: 10, yMax: 10, borderColor: 'red', label: { display: true, enabled: true, content: 'Target' } }, l: { type: 'label', xValue: 1, yValue: 16, content: ['a', 'b'] } } } } };
  const title = { display: true, text: 'Target' };
  return [
    { type: 'bar', data: { labels: ['Q1', 'Q2', 'Q3'], datasets: [{ label: 'Revenue', data: [12, 19, 7], datalabels: { display: true } }] }, options: { ...target, title, plugins: { ...(target as any).plugins, title, datalabels: { color: '#000' } } } },
    { type: 'doughnut', data: { labels: ['north', 'south', 'a,b'], datasets: [{ data: [30, 50, 20] }] }, options: { title, plugins: { title, datalabels: { color: '#fff' } } } },
  ];
}

describe('page-state fuzz: attacker configs along every declared option route leave nothing for the next caller', function () {
  this.timeout(600_000);
  let pool: Renderer;
  before(async () => {
    pool = new Renderer({ chromiumPath: loadConfig({}).chromiumPath, size: 1, renderTimeoutMs: 10_000, acquireTimeoutMs: 60_000, maxQueue: 10, pageMaxRenders: 1_000_000 }, createLogger('silent'));
    await pool.start();
  });
  after(async () => pool?.close());

  const request = (config: Record<string, unknown>, chartjs: Version, format: 'png' | 'svg'): PageRequest => ({
    config, configJson: JSON.stringify(config), width: 360, height: 240, format, backgroundColor: '#ffffff', allowFunctions: false, watermark: null, chartjs,
  });
  /** A render after which the pool reloads its page: caller code that leaves a global behind. */
  const resetPage = (chartjs: Version): PageRequest => ({
    ...request({ type: 'bar', data: { labels: ['r'], datasets: [{ data: [1] }] }, options: { title: { display: true, text: "function(){ window.__r = 1; return 'r'; }" }, plugins: { title: { display: true, text: "function(){ window.__r = 1; return 'r'; }" } } } }, chartjs, 'png'),
    allowFunctions: true,
  });
  const freshPage = async (chartjs: Version) => expect((await pool.render(resetPage(chartjs))).needsReset, 'the page is reloaded').to.equal(true);
  const draw = async (req: PageRequest) => {
    const r = await pool.render(req);
    return Buffer.from(r.data, r.data.startsWith('<') ? 'utf8' : 'base64');
  };

  for (const version of [4, 3, 2] as const) {
    it(`Chart.js ${version}: every victim, PNG and SVG, draws after each attacker as on a clean page (seed ${SEED})`, async () => {
      // the version's page, clean: the victims' references, and the routes its bundles declare
      const shown = victims(version).flatMap((v) => (['png', 'svg'] as const).map((f) => request(v, version, f)));
      const clean: Buffer[] = [];
      for (const v of shown) clean.push(await draw(v));
      const page = (await pool.currentBrowser()!.pages()).find((p) => p.url() !== 'about:blank') ?? (await pool.currentBrowser()!.pages())[0]!;
      // (as text: the test's transpiler names inner functions through a helper the page lacks)
      const routes = routesOf(await page.evaluate(`(() => { const __name = (f) => f; return (${declared.toString()})(); })()`) as ReturnType<typeof declared>);
      expect(routes.filter((r) => r.name.startsWith('plugin ')).length, 'plugin routes found in the page').to.be.above(5);
      const g = generator(SEED * 10 + version);
      // every route once, then the plugins' routes twice more (the options a plugin reads from anywhere)
      const pluginRoutes = routes.filter((r) => r.name.startsWith('plugin '));
      const order = [...routes, ...pluginRoutes, ...pluginRoutes];
      const count = Math.min(MAX_ATTACKERS, order.length);
      const attackers = Array.from({ length: count }, (_, i) => {
        const route = order[i]!;
        return { i, route, config: attacker(route, g, version), format: g.pick(['png', 'svg'] as const) };
      });
      const seen = { drawn: 0, failed: 0, reset: {} as Record<string, number> };
      /** Renders the attackers, then the victims: the first victim that differs from a clean page's, or null. */
      const victimDiffers = async (batch: typeof attackers): Promise<string | null> => {
        for (const a of batch) {
          try {
            const res = await pool.render(request(a.config, version, a.format));
            seen.drawn++;
            if (res.needsReset) seen.reset[res.resetReason ?? 'other'] = (seen.reset[res.resetReason ?? 'other'] ?? 0) + 1;
          } catch {
            seen.failed++;
          }
        }
        for (let k = 0; k < shown.length; k++) if (!(await draw(shown[k]!)).equals(clean[k]!)) return `victim ${k} (${shown[k]!.format})`;
        return null;
      };
      // a cache whose first writer decides (a label's size) is poisoned only by an attacker that
      // comes before the victim on a page: each batch starts on a fresh page, the victims after it
      for (let b = 0; b < attackers.length; b += BATCH) {
        const batch = attackers.slice(b, b + BATCH);
        await freshPage(version);
        const differs = await victimDiffers(batch);
        if (!differs) continue;
        // the attacker that does it alone, each on a fresh page
        for (const a of batch) {
          await freshPage(version);
          const alone = await victimDiffers([a]);
          if (alone) expect.fail(`FUZZ_SEED=${SEED} Chart.js ${version}: after attacker ${a.i} (${a.format}) along ${a.route.name}, ${alone} differs from a clean page's\n${JSON.stringify(a.config).slice(0, 2000)}`);
        }
        expect.fail(`FUZZ_SEED=${SEED} Chart.js ${version}: after attackers ${batch[0]!.i}..${batch[batch.length - 1]!.i} together (${batch.map((a) => a.route.name).join(', ')}), ${differs} differs from a clean page's`);
      }
      // the fuzz proves something only if most attackers drew (a refused config changes nothing)
      expect(seen.drawn, JSON.stringify(seen)).to.be.above(count / 2);
      console.log(`      Chart.js ${version}: ${routes.length} routes, ${count} attackers: ${JSON.stringify(seen)}`);
    });
  }
});
