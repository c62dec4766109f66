// Chart.js keeps some caches for the whole page (3 and 4: each plugin's option scopes, by chart
// type and plugin id, as the first plugin of that id gave them). A config is data the caller
// controls; nothing it puts in those caches may reach the next render on the page. Found by an
// outside attack: an inline plugin {id: 'datalabels', additionalOptionScopes: [...]} with no code
// at all decided where every later doughnut's data labels looked for their options (dark boxes
// on other accounts' images and on cached anonymous ones). Bundled plugins keep such caches too
// (annotation and treemap label sizes). Real Chromium, one page.
import { expect } from 'chai';
import { Renderer, type PageRequest } from '../../src/render/renderer.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';

const page = (config: Record<string, unknown>): PageRequest => ({
  config, width: 360, height: 240, format: 'png', backgroundColor: '#ffffff', allowFunctions: false, watermark: null,
});

/** What another caller draws: a doughnut with white data labels (the page's datalabels plugin). */
const VICTIM = page({
  type: 'doughnut',
  data: { labels: ['north', 'south', 'east', 'west'], datasets: [{ data: [30, 50, 20, 10], backgroundColor: ['#3b82f6', '#ef4444', '#10b981', '#f59e0b'] }] },
  options: { plugins: { datalabels: { color: '#fff' } } },
});

/** A render after which the page is reset (caller code the page cannot prove pure). */
const RESET = { ...page({ type: 'bar', data: { labels: ['r'], datasets: [{ data: [1] }] }, options: { plugins: { title: { display: true, text: "function(){ window.__r = 1; return 'r'; }" } } } }), allowFunctions: true };

describe('page-wide caches of Chart.js', function () {
  this.timeout(120000);
  let pool: Renderer;
  before(async () => {
    pool = new Renderer({ chromiumPath: loadConfig({}).chromiumPath, size: 1, renderTimeoutMs: 10000, acquireTimeoutMs: 60000, maxQueue: 10, pageMaxRenders: 1000 }, createLogger('silent'));
    await pool.start();
  });
  after(async () => pool?.close());

  it('any plugin object of the caller resets the page after its render (the scopes of its id are cached page-wide)', async () => {
    for (const plugins of [[{ id: 'annotation' }], [{ id: 'mine', additionalOptionScopes: [''] }], [{}]]) {
      const r = await pool.render(page({ type: 'line', data: { labels: ['a', 'b'], datasets: [{ data: [1, 2] }] }, plugins }));
      expect(r.needsReset, JSON.stringify(plugins)).to.equal(true);
    }
    // and none, or a list of nothing but non-objects, does not
    for (const plugins of [undefined, [], [1, 'x', null]]) {
      const r = await pool.render(page({ type: 'line', data: { labels: ['a', 'b'], datasets: [{ data: [1, 2] }] }, ...(plugins ? { plugins } : {}) }));
      expect(r.needsReset, JSON.stringify(plugins)).to.equal(false);
    }
  });

  // Found by a differential fuzz: chartjs-plugin-annotation's page-wide label-size cache keys on
  // the text and font but not the line height; the first "Target" label decided every later one's box.
  it("an annotation label's measured size does not reach the next caller's label of the same text", async () => {
    const target = (label: Record<string, unknown>, y: number) => ({
      type: 'bar',
      data: { labels: ['Q1', 'Q2', 'Q3'], datasets: [{ data: [3, 5, 2] }] },
      options: { plugins: { annotation: { annotations: { l: { type: 'line', yMin: y, yMax: y, borderColor: 'red', label: { display: true, content: 'Target', ...label } } } } } },
    });
    await pool.render(RESET);
    const attack = await pool.render(page(target({ font: { lineHeight: 6 } }, 0.5)));
    expect(attack.needsReset, 'a render with annotations needs a reset').to.equal(true);
    const victim = Buffer.from((await pool.render(page(target({}, 4)))).data, 'base64');
    await pool.render(RESET);
    const clean = Buffer.from((await pool.render(page(target({}, 4)))).data, 'base64');
    expect(victim.equals(clean), 'the victim drew as on a clean page').to.equal(true);
    // treemap keeps such a cache too
    const tree = await pool.render(page({ type: 'treemap', data: { datasets: [{ tree: [{ name: 'render', size: 40 }], key: 'size', groups: ['name'], labels: { display: true } }] } }));
    expect(tree.needsReset, 'a treemap needs a reset').to.equal(true);
  });

  for (const scope of ['plugins.tooltip', 'plugins.title']) {
    it(`a data-only inline plugin with additionalOptionScopes (${scope}) resets its page: the next caller's datalabels draw as on a clean page`, async () => {
      // a clean page first (a render that needs a reset), then the attack as its first doughnut with datalabels
      await pool.render(RESET);
      const resets = pool.stats().pageResets ?? 0;
      const attack = await pool.render(page({
        type: 'doughnut',
        data: { labels: ['p'], datasets: [{ data: [1] }] },
        plugins: [{ id: 'datalabels', additionalOptionScopes: [scope] }],
      }));
      expect(attack.needsReset, 'the attack needs a reset').to.equal(true);
      const victim = Buffer.from((await pool.render(VICTIM)).data, 'base64');
      expect(pool.stats().pageResets).to.equal(resets + 1);
      // the reference: the same chart again, after another reset (a clean page whose first
      // doughnut with datalabels is the victim's own)
      await pool.render(RESET);
      const clean = Buffer.from((await pool.render(VICTIM)).data, 'base64');
      expect(victim.equals(clean), 'the victim drew as on a clean page').to.equal(true);
    });
  }
});
