// The memory wall (issue 25 item 2): caller code's typed arrays, canvases and image data are
// refused past the in-page budget (400 invalid_input naming it, the page replaced); Chromium's
// whole process tree sits in a cgroup whose OOM killer ends a renderer, never anything else,
// and the render it ran gets a clear error. Needs root or a delegated cgroup, as CI has: where
// no cgroup can be made these tests fail, saying why.
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BAR, post, startTestServer, type TestServer } from '../helpers/server.js';
import { apiKey, bytes, errorOf } from '../helpers/client.js';
import { groupParents } from '../../src/render/cgroupLayout.js';
import type { Renderer } from '../../src/render/renderer.js';

/** A bar chart with an inline plugin whose afterDraw hook runs `body` (chart in scope). */
const withAfterDraw = (body: string) => ({ ...BAR, plugins: [{ id: 'p', afterDraw: `function(chart){ ${body} }` }] });

const poolOf = (s: TestServer) => s.deps.pool as unknown as Renderer;

/** The pids of `root` and all its descendants, from /proc/<pid>/stat. */
function processTree(root: number): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* exited */
    }
  }
  const inTree = (pid: number): boolean => pid === root || (parent.has(pid) && pid > 1 && inTree(parent.get(pid)!));
  return [...parent.keys()].filter(inTree);
}

const cgroupLines = (pid: number) => readFileSync(`/proc/${pid}/cgroup`, 'utf8');
/** A live process's cgroup lines; null once it has exited (gone, or a zombie). */
function liveCgroupLines(pid: number): string | null {
  try {
    const lines = cgroupLines(pid);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z') ? null : lines;
  } catch {
    return null;
  }
}
const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');

/** A pid that no process has now (a shell that has exited). */
function deadPid(): number {
  const r = spawnSync('/bin/sh', ['-c', 'echo $$'], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

describe('memory wall: in-page allocation budget and Chromium cgroup', function () {
  this.timeout(240000);

  describe('the in-page budget (RENDER_MEMORY_MB = 64)', () => {
    let s: TestServer;
    let trial: string;
    let paid: string;

    before(async () => {
      // one page, so "the next render" runs on the pool the attack used
      s = await startTestServer({ poolSize: 1, renderTimeoutMs: 30000, acquireTimeoutMs: 60000, pageMaxRenders: 100000, renderMemoryMb: 64 });
      trial = (await s.account('trial')).api_key;
      paid = (await s.account('enterprise')).api_key;
    });
    after(() => s?.stop());

    const send = (key: string, chart: unknown, extra: Record<string, unknown> = {}) => post(s.url, '/v1/chart', { chart, width: 400, height: 200, ...extra }, apiKey(key));

    async function expectRefusedThenWhole(key: string, body: string): Promise<void> {
      const destroyed = poolOf(s).stats().pagesDestroyed;
      const err = await errorOf(send(key, withAfterDraw(body)));
      expect(err.status, err.detail).to.equal(400);
      expect(err.error).to.equal('invalid_input');
      expect(err.detail).to.equal('render exceeded its memory budget of 64 MB');
      // the page was replaced, not reset
      expect(poolOf(s).stats().pagesDestroyed).to.be.above(destroyed);
      const next = await send(key, BAR);
      expect(next.status).to.equal(200);
      expect((await bytes(next)).subarray(1, 4).toString()).to.equal('PNG');
    }

    it('a trial key holding 2 GiB of ArrayBuffers gets 400 naming the budget; the next render is whole', async () => {
      await expectRefusedThenWhole(trial, 'var k = []; for (var i = 0; i < 32; i++) { var b = new ArrayBuffer(64 * 1048576); new Uint8Array(b).fill(1); k.push(b); } window.__k = k;');
    });

    it('a paid key holding many canvases gets 400 naming the budget; the next render is whole', async () => {
      await expectRefusedThenWhole(
        paid,
        "var k = []; for (var i = 0; i < 64; i++) { var c = document.createElement('canvas'); c.width = 4000; c.height = 4000; c.getContext('2d').fillRect(0, 0, 4000, 4000); k.push(c); } window.__k = k;",
      );
    });

    // Other ways to the same bytes: each must be counted. One render each, on one page.
    const ROUTES: Record<string, string> = {
      'refusals caught by caller code': 'var k = []; for (var i = 0; i < 64; i++) { try { k.push(new Float64Array(8 * 1048576).fill(1)); } catch (e) {} } window.__k = k;',
      "an iframe's own constructors": "var f = document.createElement('iframe'); document.body.appendChild(f); var W = f.contentWindow; var k = []; for (var i = 0; i < 40; i++) k.push(new W.Uint8Array(64 * 1048576).fill(1)); window.__k = k;",
      'an array-like with a huge length': 'new Float64Array({ length: 3e8 });',
      'getImageData and OffscreenCanvas': "var k = []; for (var i = 0; i < 20; i++) { k.push(chart.ctx.getImageData(0, 0, 3000, 3000)); var o = new OffscreenCanvas(3000, 3000); o.getContext('2d').fillRect(0, 0, 1, 1); k.push(o); } window.__k = k;",
      'ArrayBuffer.prototype.slice with the species taken away': 'var b = new ArrayBuffer(32 * 1048576); b.constructor = undefined; var k = []; for (var i = 0; i < 8; i++) k.push(b.slice(0)); window.__k = k;',
    };
    for (const [name, body] of Object.entries(ROUTES)) {
      it(`refused: ${name}`, async () => {
        await expectRefusedThenWhole(paid, body);
      });
    }

    it('the Chart.js 2 and 3 pages count too (QuickChart route, version 2 and 3)', async () => {
      const hold = 'var k = []; for (var i = 0; i < 32; i++) k.push(new Float64Array(8 * 1048576).fill(1)); window.__k = k;';
      for (const version of ['2', '3']) {
        const res = await post(s.url, '/chart', { chart: withAfterDraw(hold), version, width: 300, height: 150 }, apiKey(paid));
        expect(res.status, `Chart.js ${version}`).to.equal(400);
        expect(res.headers.get('x-quickchart-error'), `Chart.js ${version}`).to.include('render exceeded its memory budget of 64 MB');
        await res.arrayBuffer();
        const next = await post(s.url, '/chart', { chart: BAR, version, width: 300, height: 150 }, apiKey(paid));
        expect(next.status, `Chart.js ${version}, the next render`).to.equal(200);
        await next.arrayBuffer();
      }
    });

    it("the harness's own canvas does not count: a 6000x6000 backing store renders under a 64 MB budget", async () => {
      const res = await send(paid, BAR, { width: 2000, height: 2000, devicePixelRatio: 3 });
      expect(res.status).to.equal(200);
      const png = await bytes(res);
      // IHDR: width and height
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).to.deep.equal([6000, 6000]);
    });

    it('WebGL, WebAssembly memories, structured clones and audio buffers are not there for caller code', async () => {
      const probe = `var seen = [typeof WebAssembly, typeof structuredClone, typeof OfflineAudioContext, typeof createImageBitmap, typeof Response, String(document.createElement('canvas').getContext('webgl'))].join(',');
        if (seen !== 'undefined,undefined,undefined,undefined,undefined,null') throw new Error('still there: ' + seen);`;
      const res = await send(paid, withAfterDraw(probe));
      expect(res.status, (await res.clone().text()).slice(0, 200)).to.equal(200);
    });

    it('/v1/status says whether the memory wall is on', async () => {
      const body = (await (await fetch(s.url + '/v1/status')).json()) as { memoryWall?: { cgroup: string; limitMb: number | null; pidsMax: number | null; renderBudgetMb: number; reason?: string } };
      expect(body.memoryWall, 'memoryWall in /v1/status').to.be.an('object');
      expect(body.memoryWall!.cgroup, `no cgroup: ${body.memoryWall!.reason}`).to.be.oneOf(['v1', 'v2']);
      expect(body.memoryWall!.limitMb).to.equal(s.config.chromiumMemoryMb);
      expect(body.memoryWall!.pidsMax).to.equal(s.config.chromiumPidsMax);
      expect(body.memoryWall!.renderBudgetMb).to.equal(64);
    });
  });

  describe('the cgroup (CHROMIUM_MEMORY_MB = 512, no in-page budget to speak of)', () => {
    let s: TestServer;
    let key: string;
    let leftovers: string[];

    before(async () => {
      // a group left by a crashed run (its owner's pid is gone) must not break startup, and goes
      const parents = groupParents();
      expect(parents, 'this host lets the service make no cgroup (run as root, or give it a delegated cgroup v2)').to.not.be.empty;
      leftovers = parents.map((p) => join(p, `chartshot-${deadPid()}-0badc0de`));
      for (const dir of leftovers) mkdirSync(dir);
      s = await startTestServer({ poolSize: 1, renderTimeoutMs: 60000, acquireTimeoutMs: 60000, pageMaxRenders: 100000, chromiumMemoryMb: 512, renderMemoryMb: 65536 });
      key = (await s.account('enterprise')).api_key;
    });
    after(() => s?.stop());

    it('a group left by a crashed run is removed at start', () => {
      for (const dir of leftovers) expect(existsSync(dir), dir).to.equal(false);
    });

    it("Chromium's browser and every process it forked, renderers included, are in the group", () => {
      const launch = poolOf(s).currentLaunch()!;
      expect(launch.cgroup, `no cgroup: ${launch.memoryWall.reason}`).to.not.equal(null);
      const name = launch.cgroup!.dirs[0]!.split('/').pop()!;
      const tree = processTree(launch.pid!);
      const renderers = tree.filter((pid) => /--type=renderer/.test(cmdline(pid)));
      expect(renderers, 'a renderer process').to.not.be.empty;
      const checked: number[] = [];
      for (const pid of tree) {
        // a process that exited meanwhile (on cgroup v1 a zombie shows the root group) is not an escape
        const lines = liveCgroupLines(pid);
        if (lines === null) continue;
        checked.push(pid);
        expect(lines, `process ${pid}`).to.include(`/${name}\n`);
        // one line per controller in the group (v1: memory and pids; v2: the one hierarchy)
        expect(lines.split('\n').filter((l) => l.endsWith('/' + name)).length).to.equal(launch.cgroup!.dirs.length);
      }
      // the browser and at least one renderer were alive and checked
      expect(checked).to.include(launch.pid!);
      expect(renderers.some((pid) => checked.includes(pid)), 'a live renderer checked').to.equal(true);
      expect(launch.cgroup!.pids()).to.include(launch.pid);
    });

    it("a renderer ended by the cgroup's OOM killer: 400 naming CHROMIUM_MEMORY_MB, the page replaced, the next render whole", async () => {
      const launch = poolOf(s).currentLaunch()!;
      const kills = launch.cgroup!.oomKills();
      const hold = 'var k = []; for (var i = 0; i < 64; i++) k.push(new Uint8Array(32 * 1048576).fill(1)); window.__k = k;';
      const err = await errorOf(post(s.url, '/v1/chart', { chart: withAfterDraw(hold), width: 400, height: 200 }, apiKey(key)));
      expect(err.status, err.detail).to.equal(400);
      expect(err.error).to.equal('invalid_input');
      expect(err.detail).to.equal("the render exceeded Chromium's memory limit (CHROMIUM_MEMORY_MB = 512 MB) and its renderer was stopped");
      expect(launch.cgroup!.oomKills()).to.be.above(kills);
      const next = await post(s.url, '/v1/chart', { chart: BAR, width: 400, height: 200 }, apiKey(key));
      expect(next.status).to.equal(200);
    });

    it('the group is removed when the pool closes', async () => {
      const dirs = poolOf(s).currentLaunch()!.cgroup!.dirs;
      for (const dir of dirs) expect(existsSync(dir)).to.equal(true);
      await s.stop();
      for (const dir of dirs) expect(existsSync(dir), dir).to.equal(false);
    });
  });
});
