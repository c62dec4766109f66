// Chart.js and its plugins keep caches for the whole page: Chart.js 3 and 4 each plugin's option
// scopes by chart type and plugin id (as the first plugin of that id gave them),
// chartjs-plugin-annotation and treemaps the measured sizes of labels (keyed without the line
// height). A config is data the caller controls; nothing it puts in those caches may reach the
// next render on the page. The page restores every bundle's module-level state before each render
// (renderer-page/state.js), whatever the config named: these renders need no reset, and the next
// caller's image is byte for byte what a fresh page draws. Found by outside attacks: a data-only
// {id: 'datalabels', additionalOptionScopes: [...]} changed later doughnuts' data labels, and an
// annotation label through the plugin's root option scope (`options.annotations`, no
// `options.plugins.annotation`) turned another caller's "Target" label into a tall dark box.
// Real Chromium, one page.
import { expect } from 'chai';
import { Renderer, type PageRequest } from '../../src/render/renderer.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';

const page = (config: Record<string, unknown>, extra: Partial<PageRequest> = {}): PageRequest => ({
  config, width: 360, height: 240, format: 'png', backgroundColor: '#ffffff', allowFunctions: false, watermark: null, ...extra,
});

/** What another caller draws: a doughnut with white data labels (the page's datalabels plugin). */
const VICTIM = page({
  type: 'doughnut',
  data: { labels: ['north', 'south', 'east', 'west'], datasets: [{ data: [30, 50, 20, 10], backgroundColor: ['#3b82f6', '#ef4444', '#10b981', '#f59e0b'] }] },
  options: { plugins: { datalabels: { color: '#fff' } } },
});

/** A render after which the page is reset (caller code that leaves a global behind). */
const resetOn = (chartjs: 3 | 4): PageRequest => ({
  ...page({ type: 'bar', data: { labels: ['r'], datasets: [{ data: [1] }] }, options: { plugins: { title: { display: true, text: "function(){ window.__r = 1; return 'r'; }" } } } }),
  allowFunctions: true,
  chartjs,
});

/** A bar chart with a target line labelled "Target": the victim of the label-size cache (annotation
 *  1.x, for Chart.js 3, shows a label with `enabled`, 3.x with `display`). */
const targetChart = (where: 'plugin' | 'root', label: Record<string, unknown>, y: number) => {
  const annotations = { l: { type: 'line', yMin: y, yMax: y, borderColor: 'red', label: { display: true, enabled: true, content: 'Target', ...label } } };
  return {
    type: 'bar',
    data: { labels: ['Q1', 'Q2', 'Q3'], datasets: [{ data: [3, 5, 2] }] },
    options: where === 'plugin' ? { plugins: { annotation: { annotations } } } : { annotations },
  };
};

describe('page-wide caches of Chart.js and its plugins', function () {
  this.timeout(240000);
  let pool: Renderer;
  before(async () => {
    pool = new Renderer({ chromiumPath: loadConfig({}).chromiumPath, size: 1, renderTimeoutMs: 10000, acquireTimeoutMs: 60000, maxQueue: 10, pageMaxRenders: 1000 }, createLogger('silent'));
    await pool.start();
  });
  after(async () => pool?.close());

  const image = async (req: PageRequest) => {
    const r = await pool.render(req);
    return Buffer.from(r.data, r.data.startsWith('<') ? 'utf8' : 'base64');
  };
  /** The victim on this page after the attack, and on a page reset just before it (the reference). */
  async function afterAttack(attack: PageRequest, victim: PageRequest) {
    await pool.render(resetOn(attack.chartjs === 3 ? 3 : 4));
    const a = await pool.render(attack);
    const seen = await image(victim);
    await pool.render(resetOn(victim.chartjs === 3 ? 3 : 4));
    const clean = await image(victim);
    return { attack: a, seen, clean };
  }

  it("a caller's plugin objects need no reset: whatever their id and scopes, the next render draws as on a fresh page", async () => {
    for (const plugins of [[{ id: 'annotation' }], [{ id: 'mine', additionalOptionScopes: [''] }], [{}], [{ id: 'datalabels', additionalOptionScopes: ['plugins.title'] }]]) {
      const { attack, seen, clean } = await afterAttack(page({ type: 'doughnut', data: { labels: ['p'], datasets: [{ data: [1] }] }, plugins }), VICTIM);
      expect(attack.needsReset, JSON.stringify(plugins)).to.equal(false);
      expect(seen.equals(clean), `victim after ${JSON.stringify(plugins)}`).to.equal(true);
    }
  });

  for (const scope of ['plugins.tooltip', 'plugins.title']) {
    it(`a data-only inline plugin with additionalOptionScopes (${scope}) does not change the next caller's datalabels`, async () => {
      const resets = pool.stats().pageResets ?? 0;
      await pool.render(resetOn(4));
      const attack = await pool.render(page({ type: 'doughnut', data: { labels: ['p'], datasets: [{ data: [1] }] }, plugins: [{ id: 'datalabels', additionalOptionScopes: [scope] }] }));
      expect(attack.needsReset, 'no reset').to.equal(false);
      const victim = await image(VICTIM);
      await pool.render(resetOn(4));
      const clean = await image(VICTIM);
      expect(victim.equals(clean), 'the victim drew as on a fresh page').to.equal(true);
      expect(pool.stats().pageResets).to.equal(resets + 2);
    });
  }

  // The outside review's finding: annotation 3.x (Chart.js 4) and 1.x (Chart.js 3) declare an
  // option scope at the root of `options`, so `options.annotations` draws labels without
  // `options.plugins.annotation`; the first label of a text and font decided the box of every later one.
  for (const chartjs of [4, 3] as const) {
    for (const format of ['png', 'svg'] as const) {
      for (const route of ['root', 'plugin'] as const) {
        it(`Chart.js ${chartjs} ${format}: an annotation label through ${route === 'root' ? 'options.annotations' : 'options.plugins.annotation'} does not size the next caller's label of the same text`, async () => {
          const attackReq = page(targetChart(route, { font: { lineHeight: 6 }, backgroundColor: '#111' }, 0.5), { chartjs, format });
          const victim = page(targetChart('plugin', {}, 4), { chartjs, format });
          const { attack, seen, clean } = await afterAttack(attackReq, victim);
          expect(attack.needsReset, 'no reset').to.equal(false);
          expect(seen.equals(clean), 'the victim drew as on a fresh page').to.equal(true);
        });
      }
    }
  }

  it("a treemap's labels do not size the next caller's labels of the same text", async () => {
    const tree = (font: Record<string, unknown>) => page({
      type: 'treemap',
      data: { datasets: [{ tree: [{ name: 'render', size: 40 }, { name: 'queue', size: 20 }], key: 'size', groups: ['name'], labels: { display: true, font } }] },
    });
    const { attack, seen, clean } = await afterAttack(tree({ size: 30, lineHeight: 4 }), tree({ size: 12 }));
    expect(attack.needsReset, 'no reset').to.equal(false);
    expect(seen.equals(clean), 'the victim drew as on a fresh page').to.equal(true);
  });
});
