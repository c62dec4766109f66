// The MCP server through the official SDK's own client, over both transports: stdio (the built
// `chartshot mcp`, its own pool) and Streamable HTTP (POST /mcp on a real server, X-Api-Key).
// Images are decoded and measured; a bad config is a tool error with the HTTP API's detail, and
// the server goes on drawing after it.
import { expect } from 'chai';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BAR, post, sharedAccount, type Credentials, type TestServer } from '../helpers/server.js';
import { bytes, errorOf, png } from '../helpers/client.js';
import { commonProperties } from '../../src/http/schemas/chart.js';
import { CHARTJS_PAGES } from '../../src/chart/chartjsPages.js';

type Content = CallToolResult['content'][number];

const V2_AXES = { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { scales: { xAxes: [{ stacked: true }] } } };

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The JSON of a result's first text block. */
function jsonOf(r: CallToolResult): Record<string, unknown> {
  const text = r.content.find((c): c is Extract<Content, { type: 'text' }> => c.type === 'text');
  expect(text, 'a text block').to.not.equal(undefined);
  return JSON.parse(text!.text) as Record<string, unknown>;
}

/** The PNG of an image block, decoded: its pixel size. */
function pngOf(r: CallToolResult): { width: number; height: number; painted: number } {
  expect(r.isError ?? false, JSON.stringify(r.content).slice(0, 300)).to.equal(false);
  const image = r.content.find((c): c is Extract<Content, { type: 'image' }> => c.type === 'image');
  expect(image?.mimeType).to.equal('image/png');
  const decoded = png(Buffer.from(image!.data, 'base64'));
  let painted = 0;
  for (let i = 3; i < decoded.data.length; i += 4) if (decoded.data[i]! > 0) painted++;
  return { width: decoded.width, height: decoded.height, painted };
}

describe('MCP over stdio (chartshot mcp)', function () {
  this.timeout(120_000);
  let client: Client;
  let dataDir = '';

  before(async () => {
    if (!existsSync('dist/cli.js')) throw new Error('dist/cli.js missing: run npm run build (npm test does)');
    dataDir = mkdtempSync(join(tmpdir(), 'chartshot-mcp-'));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ['dist/cli.js', 'mcp'],
      env: { ...(process.env as Record<string, string>), DATA_DIR: dataDir, POOL_SIZE: '1', LOG_LEVEL: 'silent' },
      stderr: 'inherit',
    });
    client = new Client({ name: 'chartshot-test', version: '1.0.0' });
    await client.connect(transport);
  });
  after(async () => {
    await client?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists its tools, their input schemas made of the HTTP routes\' schemas (no short URLs without a store)', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.deep.equal(['render_chart', 'validate_config', 'list_chart_types']);
    const render = tools.find((t) => t.name === 'render_chart')!;
    expect(render.inputSchema.required).to.deep.equal(['chart', 'width', 'height']);
    expect(render.inputSchema.properties!.width).to.deep.equal(commonProperties.width);
    expect(render.inputSchema.properties!.backgroundColor).to.deep.equal(commonProperties.backgroundColor);
  });

  it('render_chart: a PNG image block of the asked size times devicePixelRatio, drawn', async () => {
    const r = await call(client, 'render_chart', { chart: BAR, width: 240, height: 150, devicePixelRatio: 2, backgroundColor: 'white' });
    const img = pngOf(r);
    expect([img.width, img.height]).to.deep.equal([480, 300]);
    expect(img.painted).to.equal(480 * 300); // the white background everywhere
    expect(jsonlessText(r)).to.match(/^PNG 240x150 at devicePixelRatio 2 \(480x300 pixels\), Chart.js 4/);
  });

  it('a Chart.js 2 config: a tool error with the HTTP API\'s code and hint; version 2 draws it; the server goes on', async () => {
    const bad = await call(client, 'render_chart', { chart: V2_AXES, width: 100, height: 80 });
    expect(bad.isError).to.equal(true);
    const err = jsonOf(bad);
    expect(err.error).to.equal('invalid_input');
    expect(err.detail).to.match(/xAxes is Chart.js 2 syntax/);
    const v2 = await call(client, 'render_chart', { chart: V2_AXES, width: 100, height: 80, version: '2.9.4' });
    expect(pngOf(v2)).to.include({ width: 100, height: 80 });
  });

  it('hostile arguments are tool errors, never a crash: wrong types, a huge size, an unknown tool is a protocol error', async () => {
    for (const [args, code] of [
      [{ chart: 42, width: 10, height: 10 }, 'invalid_input'],
      [{ chart: BAR, width: 'wide', height: 10 }, 'invalid_dimensions'],
      [{ chart: BAR, width: 9000, height: 10 }, 'invalid_dimensions'],
      [{ chart: BAR, width: 10, height: 10, format: 'pdf' }, 'invalid_input'],
      [{ chart: BAR, width: 10, height: 10, version: '9' }, 'invalid_input'],
      [{ chart: BAR, width: 10, height: 10, devicePixelRatio: 100 }, 'invalid_input'],
      [{ chart: '{"type":', width: 10, height: 10 }, 'invalid_input'],
      [{ width: 10, height: 10 }, 'chart_required'],
      [{ chart: BAR, width: 10, height: 10, shortUrl: true }, 'invalid_input'],
    ] as const) {
      const r = await call(client, 'render_chart', args);
      expect(r.isError, JSON.stringify(args)).to.equal(true);
      expect(jsonOf(r).error, JSON.stringify(args)).to.equal(code);
    }
    let refused: Error | null = null;
    await client.callTool({ name: 'drop_tables', arguments: {} }).catch((e: Error) => (refused = e));
    expect(String(refused)).to.match(/unknown tool/);
    // still serving
    expect(pngOf(await call(client, 'render_chart', { chart: BAR, width: 50, height: 40 }))).to.include({ width: 50, height: 40 });
  });

  it('render_chart svg: an embedded image/svg+xml resource with the SVG text', async () => {
    const r = await call(client, 'render_chart', { chart: BAR, width: 200, height: 100, format: 'svg' });
    expect(r.isError ?? false).to.equal(false);
    const res = r.content.find((c): c is Extract<Content, { type: 'resource' }> => c.type === 'resource');
    expect(res?.resource.mimeType).to.equal('image/svg+xml');
    const svg = (res!.resource as { text: string }).text;
    expect(svg).to.match(/^<svg[^>]* width="200" height="100"/);
    expect(svg).to.include('<path');
  });

  it('validate_config: the request as it would be drawn, or the error a render would give, without drawing', async () => {
    const ok = jsonOf(await call(client, 'validate_config', { chart: JSON.stringify(BAR), width: 300, height: 200, version: 3 }));
    expect(ok).to.deep.include({ valid: true, width: 300, height: 200, format: 'png', chartjs: 3, devicePixelRatio: 1 });
    // no datasets: drawn as Chart.js draws it (axes, legend; decision 26), so valid
    const bare = await call(client, 'validate_config', { chart: { type: 'line', data: { datasets: [] } }, width: 300, height: 200 });
    expect(bare.isError ?? false).to.equal(false);
    expect(jsonOf(bare)).to.deep.include({ valid: true });
    // Chart.js 2 syntax on Chart.js 4: the 400 a render would give
    const v2 = await call(client, 'validate_config', { chart: { type: 'horizontalBar', data: { labels: ['a'], datasets: [{ data: [1] }] } }, width: 300, height: 200 });
    expect(v2.isError ?? false).to.equal(false);
    expect(jsonOf(v2)).to.deep.include({ valid: false, error: 'invalid_input' });
    const big = jsonOf(await call(client, 'validate_config', { chart: BAR, width: 8000, height: 8001 }));
    expect(big).to.deep.include({ valid: false, error: 'invalid_dimensions' });
  });

  it('list_chart_types: per Chart.js version, with its plugins', async () => {
    const all = jsonOf(await call(client, 'list_chart_types', {})) as { versions: typeof CHARTJS_PAGES };
    expect(all.versions.map((v) => v.major)).to.deep.equal([4, 3, 2]);
    const v2 = jsonOf(await call(client, 'list_chart_types', { version: '2' })) as { versions: typeof CHARTJS_PAGES };
    expect(v2.versions).to.have.length(1);
    expect(v2.versions[0]!.types).to.include.members(['horizontalBar', 'radialGauge', 'violin']);
    expect(v2.versions[0]!.plugins.map((p) => p.package)).to.include('chartjs-plugin-piechart-outlabels');
  });
});

/** The summary line of a render (the last text block). */
function jsonlessText(r: CallToolResult): string {
  const texts = r.content.filter((c): c is Extract<Content, { type: 'text' }> => c.type === 'text');
  return texts[texts.length - 1]!.text;
}

describe('MCP over Streamable HTTP (POST /mcp)', function () {
  this.timeout(120_000);
  let s: TestServer;
  let account: Credentials;
  let client: Client;

  const connect = async (key?: string) => {
    const c = new Client({ name: 'chartshot-test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: key ? { 'X-Api-Key': key } : {} } }));
    return c;
  };
  const used = async () => {
    const res = await fetch(`${s.url}/usage/analytics`, { headers: { authorization: `Bearer ${account.session_token}` } });
    return ((await res.json()) as { currentUsage: { count: number } }).currentUsage.count;
  };

  before(async () => {
    const a = await sharedAccount('starter');
    s = a.s;
    account = a.account;
    client = await connect(a.key);
  });
  after(async () => {
    await client?.close();
  });

  it('lists the four tools, create_short_url included', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).to.deep.equal(['render_chart', 'create_short_url', 'validate_config', 'list_chart_types']);
  });

  it('without an API key: 401 as on /v1, before any MCP', async () => {
    let refused: (Error & { code?: number }) | null = null;
    await connect().catch((e: Error) => (refused = e));
    expect(refused!.code, String(refused)).to.equal(401);
    expect(String(refused)).to.match(/unauthorized/);
    const raw = await post(s.url, '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json, text/event-stream' });
    expect(await errorOf(raw)).to.deep.include({ status: 401, error: 'unauthorized' });
  });

  it('render_chart with shortUrl: the PNG at the asked size and its short URL serving the same image; one generation counted', async () => {
    const before = await used();
    const r = await call(client, 'render_chart', { chart: BAR, width: 160, height: 90, shortUrl: true });
    expect(pngOf(r)).to.include({ width: 160, height: 90 });
    const url = /short URL: (\S+)/.exec(jsonlessText(r))?.[1];
    expect(url).to.match(/\/v1\/chart\/[\w-]+$/);
    const served = await bytes(fetch(`${s.url}${new URL(url!).pathname}`));
    const image = r.content.find((c): c is Extract<Content, { type: 'image' }> => c.type === 'image')!;
    expect(served.equals(Buffer.from(image.data, 'base64'))).to.equal(true);
    expect(await used()).to.equal(before + 1);
  });

  it('a bad config: a tool error with the very {error, detail} POST /v1/chart answers; nothing counted', async () => {
    const before = await used();
    const body = { chart: V2_AXES, width: 100, height: 80 };
    const http = await errorOf(post(s.url, '/v1/chart', body, { 'x-api-key': account.api_key }));
    const r = await call(client, 'render_chart', body);
    expect(r.isError).to.equal(true);
    expect(jsonOf(r)).to.deep.equal({ error: http.error, detail: http.detail });
    // the plan's caps, worded for the caller's plan as the route words them
    const big = await errorOf(post(s.url, '/v1/chart', { chart: BAR, width: 3000, height: 10 }, { 'x-api-key': account.api_key }));
    const bigTool = jsonOf(await call(client, 'render_chart', { chart: BAR, width: 3000, height: 10 }));
    expect(bigTool).to.deep.equal({ error: big.error, detail: big.detail });
    expect(await used()).to.equal(before);
  });

  it('create_short_url: a URL served without credentials; validate_config counts nothing', async () => {
    const before = await used();
    const created = jsonOf(await call(client, 'create_short_url', { chart: BAR, width: 120, height: 60 }));
    const res = await fetch(`${s.url}${new URL(created.url as string).pathname}`);
    expect(res.status).to.equal(200);
    expect(png(Buffer.from(await res.arrayBuffer()))).to.include({ width: 120, height: 60 });
    expect(jsonOf(await call(client, 'validate_config', { chart: BAR, width: 120, height: 60 }))).to.deep.include({ valid: true });
    expect(await used()).to.equal(before + 1);
  });

  it('each POST carries the rate-limit headers; GET is 405 (no event stream offered)', async () => {
    const res = await post(s.url, '/mcp', { jsonrpc: '2.0', id: 7, method: 'ping' }, { 'x-api-key': account.api_key, accept: 'application/json, text/event-stream' });
    expect(res.status).to.equal(200);
    expect(res.headers.get('x-ratelimit-limit')).to.match(/^\d+$/);
    expect(await res.json()).to.deep.equal({ jsonrpc: '2.0', id: 7, result: {} });
    const get = await fetch(`${s.url}/mcp`, { headers: { 'x-api-key': account.api_key, accept: 'text/event-stream' } });
    expect(get.status).to.equal(405);
  });
});
