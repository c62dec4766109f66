// Errors that say how to fix the request: allowed values, plan caps, a missing wrapper, the key
// header, Chart.js 2 syntax, function strings that do not parse, empty data, render timeouts.
import { expect } from 'chai';
import { BAR, sharedAccount, startTestServer, type TestServer } from '../helpers/server.js';
import { apiKey, errorOf, type Client } from '../helpers/client.js';

describe('error details say how to fix the request', function () {
  let s: TestServer;
  let api: Client;
  let trial: Client;
  let session: string;

  before(async () => {
    ({ s, api } = await sharedAccount('starter'));
    const t = await s.client('trial');
    trial = t.api;
    session = t.account.session_token;
  });

  const chart = (config: unknown, extra: Record<string, unknown> = {}) => ({ chart: config, width: 200, height: 100, ...extra });

  it('an enumerated field lists its values', async () => {
    expect(await api.error('/v1/chart', chart(BAR, { format: 'jpg' }))).to.deep.include({
      status: 400,
      error: 'invalid_input',
      detail: 'format must be one of png, svg, pdf',
    });
    const zap = await api.error('/v1/zapier/bar-chart', { title: 't', labels: 'a', values: '1', format: 'gif' });
    expect(zap).to.deep.include({ status: 400, error: 'invalid_input', detail: 'format must be one of png, svg' });
    const open = await errorOf(fetch(`${s.url}/v1/open/chart?c=${encodeURIComponent(JSON.stringify(BAR))}&format=jpg`));
    expect(open).to.deep.include({ status: 400, error: 'invalid_config', detail: 'format must be one of png, svg' });
  });

  it('width and height over the cap name the plan and its cap, the same way at any size', async () => {
    for (const [field, value] of [['width', 2001], ['width', 9000], ['height', 2001], ['height', 9000], ['width', 0]] as const) {
      const e = await trial.error('/v1/chart', { ...chart(BAR), [field]: value });
      expect(e, `${field} ${value}`).to.deep.include({ status: 400, error: 'invalid_dimensions', detail: `${field} must be an integer 1-2000 on the trial plan` });
    }
    const zap = await trial.error('/v1/zapier/bar-chart', { title: 't', labels: 'a', values: '1', width: 9000 });
    expect(zap).to.deep.include({ status: 400, error: 'invalid_input', detail: 'width must be an integer 1-2000 on the trial plan' });
  });

  it('a bare config without the {"chart": ...} wrapper is told to wrap it', async () => {
    const e = await api.error('/v1/chart', { ...BAR, width: 200, height: 100 });
    expect(e.status).to.equal(400);
    expect(e.error).to.equal('chart_required');
    expect(e.detail).to.match(/wrap it as \{"chart": /);
    // a body with neither keeps the plain message
    expect((await api.error('/v1/chart', { width: 200, height: 100 })).detail).to.equal('chart (or c) is required');
  });

  it('an API key sent as Authorization: Bearer is pointed to X-Api-Key', async () => {
    const e = await api.as().error('/v1/chart', chart(BAR), { authorization: `Bearer ${api.key}` });
    expect(e.status).to.equal(401);
    expect(e.error).to.equal('unauthorized');
    expect(e.detail).to.match(/X-Api-Key header/);
    // without any credentials the message stays the plain one
    expect((await api.as().error('/v1/chart', chart(BAR))).detail).to.equal('a valid API key is required');
  });

  it('Chart.js 2 syntax on a Chart.js 4 endpoint gets the Chart.js 4 spelling and the v2 routes', async () => {
    const horizontal = await api.error('/v1/chart', chart({ ...BAR, type: 'horizontalBar' }));
    expect(horizontal.status).to.equal(400);
    expect(horizontal.error).to.equal('invalid_input');
    expect(horizontal.detail).to.include('"indexAxis": "y"').and.include('GET/POST /chart with v=2');
    const axes = await api.error('/v1/chart', chart({ ...BAR, options: { scales: { yAxes: [{ ticks: { beginAtZero: true } }] } } }));
    expect(axes.status).to.equal(400);
    expect(axes.detail).to.include('chart.options.scales.yAxes is Chart.js 2 syntax').and.include('GET/POST /chart with v=2');
    // the open endpoint says the same with its own code
    const open = await errorOf(fetch(`${s.url}/v1/open/chart?c=${encodeURIComponent(JSON.stringify({ ...BAR, type: 'horizontalBar' }))}`));
    expect(open.error).to.equal('invalid_config');
    expect(open.detail).to.include('indexAxis');
  });

  it('a function string that does not parse is a 400 naming its path; a good one still renders', async () => {
    const withCallback = (callback: string) => chart({ ...BAR, options: { scales: { y: { ticks: { callback } } } } });
    for (const bad of ['function(v) { return v + }', 'function (v) { return v + "%"', '(v) => v.toFixed(2', "v => 'a"]) {
      const e = await api.error('/v1/chart', withCallback(bad));
      expect(e, bad).to.deep.include({ status: 400, error: 'invalid_input' });
      expect(e.detail, bad).to.match(/^chart\.options\.scales\.y\.ticks\.callback is a function string that does not parse: /);
    }
    const short = await api.error('/v1/chart/create', withCallback('function(v) { return v + }'));
    expect(short.status).to.equal(400);
    expect(short.detail).to.include('chart.options.scales.y.ticks.callback');
    // brackets and quotes balance, so only a parser finds these: the page's, before any code runs
    for (const bad of ['function (v) { return v v }', '(v) => v v', 'function (v, v2 { return v }']) {
      const e = await api.error('/v1/chart', withCallback(bad));
      expect(e, bad).to.deep.include({ status: 400, error: 'invalid_input' });
      expect(e.detail, bad).to.include('options.scales.y.ticks.callback').and.include('does not parse');
    }
    expect((await api.render(withCallback("function(v) { return v + '%'; }"))).status).to.equal(200);
    expect((await api.render(withCallback('(v) => `${v} %`'))).status).to.equal(200);
    // labels and data are text: a label that reads like broken code is drawn as written
    expect((await api.render(chart({ type: 'bar', data: { labels: ['x => (y'], datasets: [{ label: 'function (', data: [1] }] } }))).status).to.equal(200);
  });

  it('a config with no data is drawn as Chart.js draws it (axes, legend), and counted', async () => {
    const before = await usageCount();
    const none = await trial.render(chart({ type: 'bar', data: { labels: ['a'], datasets: [] } }));
    expect(none.status).to.equal(200);
    expect(none.headers.get('x-chartshot-hint')).to.match(/^no datasets: only the axes/);
    const some = await trial.render(chart({ type: 'bar', data: { labels: ['a'], datasets: [{ data: [] }, { data: [1] }] } }));
    expect(some.headers.get('x-chartshot-hint')).to.equal(null);
    const empty = await trial.png(chart({ type: 'line', data: { datasets: [{ label: 'x', data: [] }, { label: 'y' }] } }));
    const inked = empty.data.filter((v, i) => i % 4 === 3 && v > 0).length;
    expect(inked, 'the legend and axes are drawn').to.be.greaterThan(100);
    expect(await usageCount()).to.equal(before + 3);
  });

  it('a moment format on the Chart.js 3 page (date-fns) is told which adapter reads which tokens', async () => {
    const config = {
      type: 'line',
      data: { datasets: [{ label: 'x', data: [{ x: '2020', y: 1 }, { x: '2021', y: 2 }] }] },
      options: { scales: { x: { type: 'time', time: { parser: 'YYYY', unit: 'year' } } } },
    };
    const res = await fetch(`${s.url}/chart`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...apiKey(api.key!) },
      body: JSON.stringify({ chart: config, version: '3', width: 200, height: 100 }),
    });
    expect(res.status).to.equal(400);
    expect(res.headers.get('x-quickchart-error')).to.match(/Use `yyyy` instead of `YYYY`.*\(date-fns adapter: write yyyy, dd; moment formats like YYYY are drawn with moment on Chart\.js 4 and 2\)$/);
    // the same config on Chart.js 4 is drawn with moment (decision 26)
    const v4 = await fetch(`${s.url}/chart`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...apiKey(api.key!) },
      body: JSON.stringify({ chart: config, version: '4', width: 200, height: 100 }),
    });
    expect(v4.status).to.equal(200);
  });

  async function usageCount(): Promise<number> {
    const res = await fetch(`${s.url}/usage/analytics`, { headers: { authorization: `Bearer ${session}` } });
    expect(res.status).to.equal(200);
    return ((await res.json()) as { currentUsage: { count: number } }).currentUsage.count;
  }
});

describe('a render that runs past RENDER_TIMEOUT_MS', function () {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ renderTimeoutMs: 1500 });
  });
  after(() => s.stop());

  it('says it timed out because a callback did not return, and counts as a timeout in /metrics', async () => {
    const { api_key } = await s.account('starter');
    const res = await fetch(`${s.url}/v1/chart`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...apiKey(api_key) },
      body: JSON.stringify({ chart: { ...BAR, options: { scales: { y: { ticks: { callback: 'function (v) { while (true) {} }' } } } } }, width: 200, height: 100 }),
    });
    expect(await errorOf(res)).to.deep.equal({ status: 500, error: 'render_failed', detail: 'render timed out after 1.5 s: a callback did not return' });
    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    expect(metrics).to.match(/chartshot_render_duration_seconds_count\{format="png",outcome="timeout"\} 1\n/);
    expect(metrics).not.to.match(/outcome="crash"\} [1-9]/);
  });
});
