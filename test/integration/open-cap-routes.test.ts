// The open endpoint's and keyless QuickChart's caps count what a plugin draws through every route
// it reads its options from, on the pages that draw them: chartjs-plugin-annotation's
// options.plugins.annotation and its root scope options.annotations (Chart.js 3 and 4) and
// options.annotation (Chart.js 2); datalabels' options.plugins.datalabels and each dataset's
// datalabels, whose label sets a point draws together. Over a cap through any route: 400 with the
// route's error (invalid_config on /v1/open/chart before a page is used; keyless /chart answers
// QuickChart's way, 400 with the message in X-quickchart-error); at the cap: an image. Real server, one page.
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { bytes } from '../helpers/client.js';
import { isPng } from '../helpers/images.js';
import { probeRenders } from '../helpers/renders.js';
import { MAX_ANNOTATIONS, MAX_DATALABELS_LABELS } from '../../src/chart/openCaps.js';

const lines = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'line', yMin: i % 9, yMax: i % 9 }));
const named = (n: number) => Object.fromEntries(lines(n).map((a, i) => [`a${i}`, a]));
const sets = (prefix: string, n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, { color: '#000' }]));
const chart = (options: object, dataset: object = {}) => ({ type: 'bar', data: { labels: ['a', 'b'], datasets: [{ data: [9, 4], ...dataset }] }, options });

interface Route {
  name: string;
  /** Over the cap by one through this route (and, for datalabels, through the chart's and the dataset's together). */
  over: object;
  /** At the cap through the same route. */
  at: object;
  /** Chart.js versions whose plugin reads the route (keyless /chart); 4 is also the open endpoint's. */
  versions: Array<2 | 3 | 4>;
  detail: RegExp;
}

const N = MAX_ANNOTATIONS;
const L = MAX_DATALABELS_LABELS;
const ROUTES: Route[] = [
  { name: 'options.plugins.annotation.annotations', over: chart({ plugins: { annotation: { annotations: named(N + 1) } } }), at: chart({ plugins: { annotation: { annotations: named(N) } } }), versions: [3, 4], detail: /options\.plugins\.annotation\.annotations has 101 annotations/ },
  { name: 'options.annotations (the root scope)', over: chart({ annotations: lines(N + 1) }), at: chart({ annotations: lines(N) }), versions: [3, 4], detail: /options\.annotations has 101 annotations/ },
  { name: "options.annotation (Chart.js 2's plugin)", over: chart({ annotation: { annotations: lines(N + 1) } }), at: chart({ annotation: { annotations: lines(N) } }), versions: [2], detail: /options\.annotation\.annotations has 101 annotations/ },
  { name: 'options.plugins.datalabels.labels', over: chart({ plugins: { datalabels: { labels: sets('c', L + 1) } } }), at: chart({ plugins: { datalabels: { labels: sets('c', L) } } }), versions: [2, 3, 4], detail: /options\.plugins\.datalabels\.labels has 11 labels/ },
  { name: "a dataset's datalabels.labels", over: chart({}, { datalabels: { labels: sets('d', L + 1) } }), at: chart({}, { datalabels: { labels: sets('d', L) } }), versions: [2, 3, 4], detail: /data\.datasets\[0\]\.datalabels\.labels has 11 labels/ },
  {
    name: "the chart's and a dataset's datalabels.labels together",
    over: chart({ plugins: { datalabels: { labels: sets('c', 6) } } }, { datalabels: { labels: sets('d', 5) } }),
    at: chart({ plugins: { datalabels: { labels: sets('c', 5) } } }, { datalabels: { labels: sets('d', 5) } }),
    versions: [2, 3, 4],
    detail: /data\.datasets\[0\]\.datalabels\.labels with options\.plugins\.datalabels\.labels make 11 labels per point; at most 10/,
  },
];

describe('open and keyless caps count every option route of a plugin', function () {
  this.timeout(180_000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ poolSize: 1, quickchartAnonymous: true, openRendersPerHour: 1_000_000, acquireTimeoutMs: 60_000 });
  });
  after(async () => s?.stop());

  const open = (config: object) => fetch(`${s.url}/v1/open/chart?${new URLSearchParams({ c: JSON.stringify(config), w: '300', h: '200' })}`);
  const keyless = (config: object, v: number) => fetch(`${s.url}/chart?${new URLSearchParams({ c: JSON.stringify(config), v: String(v), width: '300', height: '200' })}`);
  async function refused(res: Response, code: string, detail: RegExp, what: string): Promise<void> {
    const text = (await bytes(res)).toString('utf8');
    expect(res.status, `${what}: ${text.slice(0, 200)}`).to.equal(400);
    const body = JSON.parse(text) as { error: string; detail: string };
    expect(body.error, what).to.equal(code);
    expect(body.detail, what).to.match(detail);
  }
  /** QuickChart's way: the status, the message in X-quickchart-error, an image of it as the body. */
  async function refusedImage(res: Response, detail: RegExp, what: string): Promise<void> {
    await bytes(res);
    expect(res.status, `${what}: ${res.headers.get('x-quickchart-error')}`).to.equal(400);
    expect(res.headers.get('x-quickchart-error'), what).to.match(detail);
  }
  async function drawn(res: Response, what: string): Promise<void> {
    const body = await bytes(res);
    expect(res.status, `${what}: ${body.toString('utf8').slice(0, 200)}`).to.equal(200);
    expect(isPng(body), what).to.equal(true);
  }

  it('GET /v1/open/chart: over a cap through any route is 400 invalid_config without a render; at the cap it draws', async () => {
    const renders = probeRenders(s);
    for (const r of ROUTES.filter((x) => x.versions.includes(4))) await refused(await open(r.over), 'invalid_config', r.detail, r.name);
    expect(renders.count, 'no refused config reached a page').to.equal(0);
    for (const r of ROUTES.filter((x) => x.versions.includes(4))) await drawn(await open(r.at), r.name);
  });

  for (const v of [2, 3, 4] as const) {
    it(`keyless GET /chart on Chart.js ${v}: over a cap through any route its plugin reads is 400 (QuickChart's error image); at the cap it draws`, async () => {
      const routes = ROUTES.filter((x) => x.versions.includes(v));
      for (const r of routes) await refusedImage(await keyless(r.over, v), r.detail, r.name);
      for (const r of routes) await drawn(await keyless(r.at, v), r.name);
    });
  }
});
