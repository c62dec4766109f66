// The host's time zone and locale never reach an image: two servers of the same build, one
// started with TZ=UTC and an English locale, the other with TZ=Asia/Tokyo and German and French
// ones, draw the same bytes for charts whose pixels follow the page's zone and locale (a time
// axis, a callback that prints the local hour and a localised number) on the Chart.js 2, 3 and 4
// pages, PNG and SVG, and name the same renderer. Before the pinning the Tokyo server drew
// ticks at 9AM where the other drew 12AM, under the same X-Chartshot-Renderer.
import { expect } from 'chai';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../helpers/services.js';
import { decodePng } from '../helpers/images.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Server {
  url: string;
  key: string;
  proc: ChildProcess;
  dataDir: string;
  exited: Promise<void>;
}

// hours across a day in ms since the epoch: where midnight falls, and what each tick reads, is the zone's
const START = Date.UTC(2024, 2, 30, 18);
const POINTS = Array.from({ length: 14 }, (_, i) => ({ x: START + i * 3 * 3600_000, y: 1000 + i * 1234.5 }));
// the local hour of the epoch and a localised number, from caller code
const TICK = "function (v) { return new Date(0).getHours() + 'h ' + Number(v).toLocaleString(); }";

const CONFIGS: Record<2 | 3 | 4, Record<string, unknown>> = {
  4: {
    type: 'line',
    data: { datasets: [{ label: 'load', data: POINTS, borderColor: '#36a2eb', backgroundColor: '#36a2eb' }] },
    options: { scales: { x: { type: 'time', time: { unit: 'hour' } }, y: { ticks: { callback: TICK } } } },
  },
  3: {
    type: 'line',
    data: { datasets: [{ label: 'load', data: POINTS, borderColor: '#36a2eb', backgroundColor: '#36a2eb' }] },
    options: { scales: { x: { type: 'time', time: { unit: 'hour' } }, y: { ticks: { callback: TICK } } } },
  },
  2: {
    type: 'line',
    data: { datasets: [{ label: 'load', data: POINTS, borderColor: '#36a2eb', backgroundColor: '#36a2eb', fill: false }] },
    options: { scales: { xAxes: [{ type: 'time', time: { unit: 'hour' } }], yAxes: [{ ticks: { callback: TICK } }] }, plugins: { datalabels: { display: false } } },
  },
};

describe('the host TZ and LANG never reach an image', function () {
  this.timeout(240_000);
  const servers: Server[] = [];

  async function start(hostEnv: Record<string, string>): Promise<Server> {
    const dataDir = mkdtempSync(join(tmpdir(), 'chartshot-host-zone-'));
    const env: NodeJS.ProcessEnv = { ...process.env, ...hostEnv, DATA_DIR: dataDir, LOG_LEVEL: 'warn', POOL_SIZE: '1', HOST: '127.0.0.1' };
    delete env.TIMEZONE;
    delete env.LOCALE;
    const created = await run('node', ['dist/cli.js', 'accounts', 'create', '--plan', 'enterprise', '--json'], { cwd: ROOT, env, encoding: 'utf8' });
    const key = (JSON.parse(created.stdout) as { api_key: string }).api_key;
    const port = await freePort();
    const proc = spawn('node', ['dist/cli.js', 'serve'], { cwd: ROOT, env: { ...env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    proc.stderr!.resume();
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if (proc.exitCode !== null) throw new Error(`the server with ${JSON.stringify(hostEnv)} exited at start`);
      if (await fetch(`${url}/v1/status`).then((r) => r.status === 200, () => false)) break;
      if (i > 900) throw new Error('the server did not start');
      await sleep(100);
    }
    const server = { url, key, proc, dataDir, exited };
    servers.push(server);
    return server;
  }

  before(async () => {
    await start({ TZ: 'UTC', LANG: 'en_US.UTF-8', LC_ALL: 'en_US.UTF-8', LANGUAGE: 'en' });
    await start({ TZ: 'Asia/Tokyo', LANG: 'de_DE.UTF-8', LC_ALL: 'fr_FR.UTF-8', LC_NUMERIC: 'de_DE.UTF-8', LC_TIME: 'ja_JP.UTF-8', LANGUAGE: 'de' });
  });

  after(async () => {
    for (const s of servers) {
      if (s.proc.exitCode === null && s.proc.signalCode === null) s.proc.kill('SIGTERM');
      await Promise.race([s.exited, sleep(15_000)]);
      rmSync(s.dataDir, { recursive: true, force: true });
    }
  });

  /** QuickChart's POST /chart: the route that draws on each Chart.js version. */
  async function draw(s: Server, version: 2 | 3 | 4, format: 'png' | 'svg'): Promise<{ body: Buffer; renderer: string }> {
    const res = await fetch(`${s.url}/chart`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': s.key },
      body: JSON.stringify({ chart: CONFIGS[version], version: String(version), format, width: 400, height: 240, devicePixelRatio: 1, backgroundColor: 'white' }),
    });
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.status, body.toString('utf8').slice(0, 300)).to.equal(200);
    return { body, renderer: res.headers.get('x-chartshot-renderer') ?? '' };
  }

  for (const version of [2, 3, 4] as const) {
    for (const format of ['png', 'svg'] as const) {
      it(`Chart.js ${version}, ${format}: the same bytes and the same renderer from both hosts`, async () => {
        const [a, b] = servers as [Server, Server];
        const [one, two] = [await draw(a, version, format), await draw(b, version, format)];
        expect(one.renderer).to.match(/; timezone=UTC; locale=en-US$/);
        expect(two.renderer).to.equal(one.renderer);
        if (format === 'png') expect(decodePng(one.body).width).to.equal(400);
        // midnight UTC is on the axis; the callback's hour is UTC's, its number en-US's
        else expect(one.body.toString('utf8')).to.include('>12AM<').and.match(/>0h \d{1,2},\d{3}</);
        expect(two.body.equals(one.body), `${format} bytes differ between TZ=UTC and TZ=Asia/Tokyo`).to.equal(true);
      });
    }
  }
});
