// The pool's guarantees, on real Chromium: isolation between renders, no network, timeouts,
// crashes, overload and recycling.
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BAR, post, startTestServer, type TestServer } from '../helpers/server.js';
import { apiKey, bytes } from '../helpers/client.js';
import { poolIdle, tcpSink, udpSink } from '../helpers/sinks.js';

async function body(res: Response): Promise<Buffer> {
  return await bytes(res);
}

/** Processes whose command line names one of these profile directories. */
function processesUsing(profiles: string[]): number {
  let n = 0;
  for (const dir of profiles) {
    try {
      n += execFileSync('pgrep', ['-f', dir], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).length;
    } catch {
      /* pgrep exits 1 when nothing matches */
    }
  }
  return n;
}

describe('the page pool', function () {
  this.timeout(120000);

  describe('with one page', () => {
    let s: TestServer;
    let key: string;
    before(async () => {
      // a page replaced after a crash may take seconds on a loaded machine: requests wait for it
      s = await startTestServer({ poolSize: 1, renderTimeoutMs: 1500, pageMaxRenders: 1000, acquireTimeoutMs: 60_000 });
      key = (await s.account('starter')).api_key;
    });
    after(async () => s?.stop());
    const render = (chart: unknown, extra: Record<string, unknown> = {}) =>
      post(s.url, '/v1/chart', { chart, width: 300, height: 150, ...extra }, apiKey(key));

    it('Chromium speaks CDP in CBOR and its renderers keep their optimised code through idle spells (decision 32, docs/performance.md)', async () => {
      const pid = s.deps.pool.currentLaunch()!.pid!;
      const browserArgs = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(browserArgs).to.include('--remote-debugging-pipe=cbor');
      expect(browserArgs).to.not.include('--remote-debugging-pipe');
      const jsFlags = browserArgs.filter((a) => a.startsWith('--js-flags='));
      expect(jsFlags).to.have.length(1);
      expect(jsFlags[0]!.split(/[= ]/)).to.include('--no-memory-reducer');
      // and the render call answers over it, image and all
      const png = await body(await render(BAR));
      expect(png.subarray(1, 4).toString('latin1')).to.equal('PNG');
    });

    it('a render cannot stamp or read the next one on the same page', async () => {
      const clean = await body(await render(BAR));
      // Registers a global plugin that would paint every later chart red, and wraps the harness.
      const stamp = {
        type: 'bar',
        data: BAR.data,
        options: {
          plugins: {
            title: {
              display: true,
              text: "function(){ Chart.register({id:'evil', afterDraw(c){ c.ctx.fillStyle='red'; c.ctx.fillRect(0,0,300,150); }}); window.__stolen = 1; const r = window.chartshot.render; window.chartshot.render = function(q){ window.__last = q; return r(q); }; const w = window.chartshot.renderWire; window.chartshot.renderWire = function(o, c, d, j){ window.__last = o; return w(o, c, d, j); }; return 'x'; }",
            },
          },
        },
      };
      expect((await render(stamp)).status).to.equal(200);
      const after = await body(await render(BAR));
      expect(after.equals(clean)).to.equal(true);
    });

    it('an infinite loop times out with 500 render_failed; the next render works and is identical', async () => {
      const clean = await body(await render(BAR));
      const loop = { type: 'bar', data: BAR.data, options: { scales: { y: { ticks: { callback: 'function(v){ while(true){} }' } } } } };
      const t = Date.now();
      const res = await render(loop);
      expect(res.status).to.equal(500);
      expect(await res.json()).to.include({ error: 'render_failed' });
      expect(Date.now() - t).to.be.lessThan(1500 + 3000);
      const next = await render(BAR);
      expect(next.status).to.equal(200);
      expect((await body(next)).equals(clean)).to.equal(true);
    });

    it('a memory bomb fails cleanly and the pool recovers', async () => {
      const bomb = { type: 'bar', data: BAR.data, options: { scales: { y: { ticks: { callback: 'function(v){ const a=[]; while(true){ a.push(new Array(1e6).fill(v)); } }' } } } } };
      const res = await render(bomb);
      expect(res.status).to.equal(500);
      expect(((await res.json()) as { error: string }).error).to.equal('render_failed');
      expect((await render(BAR)).status).to.equal(200);
    });

    it('the page reaches no network by any route', async () => {
      const tcp = await tcpSink();
      const udp = await udpSink();
      const port = tcp.port;
      const uport = udp.port;
      const target = `http://127.0.0.1:${port}`;
      const attempts = [
        `fetch('${target}/fetch').catch(()=>{})`,
        `(function(){var x=new XMLHttpRequest();x.open('GET','${target}/xhr');x.send();})()`,
        `(function(){var i=new Image();i.src='${target}/img';document.body.appendChild(i);})()`,
        `(function(){try{new WebSocket('ws://127.0.0.1:${port}/ws')}catch(e){}})()`,
        `(function(){var l=document.createElement('link');l.rel='prefetch';l.href='${target}/prefetch';document.head.appendChild(l);})()`,
        `(function(){try{window.open('${target}/popup')}catch(e){}})()`,
        `(function(){try{navigator.sendBeacon('${target}/beacon','x')}catch(e){}})()`,
        `(function(){try{new EventSource('${target}/sse')}catch(e){}})()`,
        `(function(){try{import('${target}/mod.js').catch(()=>{})}catch(e){}})()`,
        `(function(){try{var pc=new RTCPeerConnection({iceServers:[{urls:'stun:127.0.0.1:${uport}'}]});pc.createDataChannel('x');pc.createOffer().then(function(o){return pc.setLocalDescription(o)});}catch(e){}})()`,
        `(function(){var f=document.createElement('iframe');f.src='${target}/frame';document.body.appendChild(f);})()`,
      ];
      const config = {
        type: 'bar',
        data: BAR.data,
        // each attempt on its own: fetch, XHR and the like may not even exist in the page (lockdown.js)
        options: { plugins: { title: { display: true, text: `function(){ ${attempts.map((a) => `try{${a}}catch(e){}`).join(';')}; return 't'; }` } } },
      };
      const res = await render(config);
      expect(res.status).to.equal(200);
      // The page is reset (its document replaced, ending every request, socket and peer connection
      // it opened) before it is idle again: after that moment, the sinks' own markers prove the rest.
      await poolIdle(() => s.deps.pool.stats());
      expect(await tcp.settle(), 'TCP connections from the page').to.deep.equal([]);
      expect(await udp.settle(), 'UDP packets from the page').to.deep.equal([]);
    });
  });

  it('overload answers 503 with Retry-After instead of hanging', async () => {
    const s = await startTestServer({ poolSize: 1, maxQueue: 1, acquireTimeoutMs: 500, renderTimeoutMs: 3000 });
    try {
      const key = (await s.account('starter')).api_key;
      const slow = { type: 'bar', data: BAR.data, options: { scales: { y: { ticks: { callback: 'function(v){ var t=Date.now(); while(Date.now()-t<150){} return v; }' } } } } };
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          post(s.url, '/v1/chart', { chart: slow, width: 200 + i, height: 100 }, apiKey(key)).then(async (r) => ({
            status: r.status,
            retry: r.headers.get('retry-after'),
            body: await r.arrayBuffer(),
          })),
        ),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses).to.include(200);
      expect(statuses).to.include(503);
      for (const r of results.filter((x) => x.status === 503)) expect(Number(r.retry)).to.be.greaterThan(0);
      expect(statuses.every((x) => x === 200 || x === 503)).to.equal(true);
    } finally {
      await s.stop();
    }
  });

  it('pages recycle after their render budget, staggered, without failing requests', async () => {
    const s = await startTestServer({ poolSize: 2, pageMaxRenders: 3, acquireTimeoutMs: 60_000 });
    try {
      const key = (await s.account('starter')).api_key;
      for (let i = 0; i < 16; i++) {
        const res = await post(s.url, '/v1/chart', { chart: BAR, width: 100 + i, height: 100 }, apiKey(key));
        expect(res.status).to.equal(200);
      }
      expect(s.deps.pool.stats().pagesCreated).to.be.greaterThan(2);
    } finally {
      await s.stop();
    }
  });

  it('a killed browser is relaunched and renders succeed again; no Chromium is left after shutdown', async () => {
    const s = await startTestServer({ poolSize: 2, renderTimeoutMs: 3000 });
    const key = (await s.account('starter')).api_key;
    const pid = s.deps.pool.currentLaunch()!.pid!;
    expect(pid).to.be.a('number');
    // Chromium's singleton socket directory in /tmp, which a killed browser leaves behind.
    const socketDir = dirname(readlinkSync(join(s.deps.pool.profiles[0]!, 'SingletonSocket')));
    expect(existsSync(socketDir)).to.equal(true);
    const load = Array.from({ length: 8 }, (_, i) =>
      post(s.url, '/v1/chart', { chart: BAR, width: 200 + i, height: 100 }, apiKey(key)).then(async (r) => ({
        status: r.status,
        error: r.status === 200 ? null : ((await r.json()) as { error: string }).error,
        retryAfter: r.headers.get('retry-after'),
      })),
    );
    process.kill(pid, 'SIGKILL');
    const answers = await Promise.all(load);
    const statuses = answers.map((a) => `${a.status} ${a.error ?? ''}`);
    // each answer is the interface's for its case: rendered (200), its render lost with the browser
    // (500 render_failed), or no page free in time while the browser came back (503 + Retry-After)
    for (const a of answers) {
      if (a.status === 200) continue;
      if (a.status === 500) expect(a.error, statuses.join()).to.equal('render_failed');
      else {
        expect(a.status, statuses.join()).to.equal(503);
        expect(a.error, statuses.join()).to.equal('service_unavailable');
        expect(Number(a.retryAfter), statuses.join()).to.be.at.least(1);
      }
    }
    const deadline = Date.now() + 30_000; // a bound for a loaded machine, not a speed claim
    let ok = false;
    while (!ok && Date.now() < deadline) {
      const res = await post(s.url, '/v1/chart', { chart: BAR, width: 150, height: 100 }, apiKey(key));
      ok = res.status === 200;
      if (!ok) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ok, 'rendering again within 30 s').to.equal(true);
    expect(s.deps.pool.stats().browserRestarts).to.equal(1);
    const profiles = [...s.deps.pool.profiles];
    expect(profiles).to.have.length(2);
    expect(processesUsing(profiles)).to.be.greaterThan(0);
    await s.stop();
    // Exiting processes may linger as zombies a moment after stop(): wait for them to go, within a bound.
    for (let i = 0; i < 200 && processesUsing(profiles) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(processesUsing(profiles), 'Chromium processes left 10 s after shutdown').to.equal(0);
    for (const dir of [...profiles, socketDir]) expect(existsSync(dir), `${dir} left in /tmp`).to.equal(false);
  });
});
