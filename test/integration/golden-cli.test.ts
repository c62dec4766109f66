// `chartshot test`: goldens written, matched, differing, missing; exit codes; the report as
// Chromium shows it; the renderer record; renders through a running server (built dist/cli.js).
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer from 'puppeteer-core';
import { startTestServer, testConfig, BAR, type TestServer } from '../helpers/server.js';
import { apiKey, bytes, post } from '../helpers/client.js';
import { decodePng } from '../helpers/images.js';

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** The built command, run without blocking this process (a server in it may have to answer). */
function chartshot(dataDir: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const p = spawn('node', ['dist/cli.js', ...args], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    p.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    p.on('close', (code) => resolve({ code, out, err }));
  });
}

const bar = (data: number[]) => ({ chart: { ...BAR, data: { ...BAR.data, datasets: [{ label: 'Revenue', data }] } }, width: 400, height: 200, backgroundColor: 'white' });
const line = { c: { type: 'line', data: { labels: ['a', 'b', 'c'], datasets: [{ label: 'y', data: [1, 3, 2] }] } }, width: 300, height: 200, format: 'svg' };
const pie = { chart: { type: 'pie', data: { labels: ['x', 'y'], datasets: [{ data: [2, 1] }] } }, width: 200, height: 200 };

describe('chartshot test: golden images', function () {
  this.timeout(180_000);
  let root: string;
  let dir: string;
  let dataDir: string;
  const cli = (...args: string[]) => chartshot(dataDir, ...args);
  const write = (name: string, body: unknown) => {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), typeof body === 'string' ? body : JSON.stringify(body));
  };

  before(() => {
    if (!existsSync('dist/cli.js')) throw new Error('dist/cli.js missing: run npm run build');
    root = mkdtempSync(join(tmpdir(), 'chartshot-golden-'));
    dataDir = join(root, 'data');
    dir = join(root, 'charts');
    mkdirSync(dataDir);
    write('bar.json', bar([12, 19, 3, 5]));
    write('line.json', line);
    write('more/pie.json', pie);
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('without goldens each config is missing (exit 1); --update writes them and the renderer (exit 0); then all match (exit 0)', async () => {
    const first = await cli('test', dir);
    expect(first.code, first.err).to.equal(1);
    expect(first.out.split('\n').slice(0, 3)).to.deep.equal(['missing bar  (no golden image)', 'missing line  (no golden image)', 'missing more/pie  (no golden image)']);
    expect(first.out).to.match(/^3 configs: 0 ok, 0 differ, 3 missing, 0 errors \(\d+\.\d s\)$/m);
    // not a terminal: no progress line
    expect(first.out).not.to.contain('\r');

    const update = await cli('test', dir, '--update');
    expect(update.code, update.err).to.equal(0);
    expect(update.out).to.contain('updated bar  (golden written)');
    expect(decodePng(readFileSync(join(dir, 'bar.png')))).to.include({ width: 400, height: 200 });
    expect(readFileSync(join(dir, 'line.svg'), 'utf8')).to.match(/^<svg /);
    expect(existsSync(join(dir, 'more', 'pie.png'))).to.equal(true);
    expect(readFileSync(join(dir, '.chartshot-renderer'), 'utf8')).to.match(/^chartjs=4\.6\.1; chromium=\d+\.\d+\.\d+\.\d+; fonts=[0-9a-f]{8}\n$/);

    const again = await cli('test', dir, '--jobs', '1');
    expect(again.code, again.out + again.err).to.equal(0);
    expect(again.out.split('\n').slice(0, 4)).to.deep.equal(['ok      bar', 'ok      line', 'ok      more/pie', again.out.split('\n')[3]!]);
    expect(again.out).to.match(/^3 configs: 3 ok, 0 differ, 0 missing, 0 errors/m);
  });

  it('the server renders the goldens the command wrote, byte for byte (PNG and SVG)', async () => {
    const s = await startTestServer({ poolSize: 1 });
    try {
      const { api_key } = await s.account('enterprise');
      for (const [cfg, golden] of [[bar([12, 19, 3, 5]), 'bar.png'], [line, 'line.svg'], [pie, 'more/pie.png']] as const) {
        const res = await post(s.url, '/v1/chart', cfg, apiKey(api_key));
        expect(res.status, golden).to.equal(200);
        expect((await bytes(res)).equals(readFileSync(join(dir, golden))), golden).to.equal(true);
      }
      // and through the command's --server mode, with the typed client
      const viaServer = await cli('test', dir, '--server', s.url, '--api-key', api_key);
      expect(viaServer.code, viaServer.out + viaServer.err).to.equal(0);
      expect(viaServer.out).to.match(/^3 configs: 3 ok/m);
      const badKey = await cli('test', dir, '--server', s.url, '--api-key', 'live_nope');
      expect(badKey.code).to.equal(1);
      expect(badKey.out).to.contain('error   bar  (unauthorized: ');
    } finally {
      await s.stop();
    }
  });

  it('a changed chart differs by its pixel count; the tolerance flags let a small change pass', async () => {
    write('bar.json', bar([12, 19, 4, 5]));
    const r = await cli('test', dir);
    expect(r.code).to.equal(1);
    const m = /^differs bar {2}\((\d+) of 80000 pixels\)$/m.exec(r.out);
    expect(m, r.out).not.to.equal(null);
    const n = Number(m![1]);
    expect(n).to.be.within(50, 8000);
    expect(r.out).to.contain('ok      line');
    expect((await cli('test', dir, '--max-diff-pixels', String(n))).code).to.equal(0);
    expect((await cli('test', dir, '--max-diff-pixels', String(n - 1))).code).to.equal(1);
  });

  it('the report: failures first, golden, actual and diff side by side, as Chromium shows it; JUnit XML', async () => {
    write('new.json', bar([1, 2, 3, 4]));
    const out = join(root, 'report');
    const r = await cli('test', dir, '--report', out);
    expect(r.code).to.equal(1);
    for (const f of ['index.html', 'junit.xml', 'bar.actual.png', 'bar.diff.png', 'bar.golden.png', 'new.actual.png', 'line.golden.svg']) {
      expect(existsSync(join(out, f)), f).to.equal(true);
    }
    expect(existsSync(join(out, 'line.actual.svg'))).to.equal(false);
    const junit = readFileSync(join(out, 'junit.xml'), 'utf8');
    expect(junit).to.match(/<testsuites name="chartshot" tests="4" failures="2" errors="0"/);
    expect(junit).to.match(/<testcase classname="chartshot.golden" name="bar" time="[\d.]+">\s*<failure message="differs: \d+ of 80000 pixels"\/>/);

    const browser = await puppeteer.launch({ executablePath: testConfig().chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage'] });
    try {
      const page = await browser.newPage();
      const requests: string[] = [];
      page.on('request', (q) => requests.push(q.url()));
      await page.setViewport({ width: 1300, height: 900 });
      await page.goto(pathToFileURL(join(out, 'index.html')).href, { waitUntil: 'load' });
      const seen = await page.evaluate(() => ({
        title: document.querySelector('h1')!.textContent,
        rows: Array.from(document.querySelectorAll('tbody tr')).map((tr) => ({
          name: tr.querySelector('.name b')!.textContent,
          badge: tr.querySelector('.badge')!.textContent,
          images: Array.from(tr.querySelectorAll('img')).map((i) => ({ alt: i.alt, w: i.naturalWidth, h: i.naturalHeight })),
        })),
      }));
      expect(seen.title).to.match(/^4 configs: 2 ok, 1 differ, 1 missing, 0 errors/);
      expect(seen.rows.map((x) => [x.name, x.badge])).to.deep.equal([['bar', 'differs'], ['new', 'missing'], ['line', 'ok'], ['more/pie', 'ok']]);
      // golden, actual and diff of the difference, all loaded and of the chart's size
      expect(seen.rows[0]!.images).to.deep.equal([
        { alt: 'golden of bar', w: 400, h: 200 },
        { alt: 'actual of bar', w: 400, h: 200 },
        { alt: 'diff of bar', w: 400, h: 200 },
      ]);
      expect(seen.rows[1]!.images).to.deep.equal([{ alt: 'actual of new', w: 400, h: 200 }]);
      expect(requests.every((u) => u.startsWith('file://')), requests.join(' ')).to.equal(true);
      await page.screenshot({ path: join(out, 'screenshot.png') });
      // the diff image is drawn into the page: red highlights where the bar grew
      const shot = decodePng(readFileSync(join(out, 'screenshot.png')));
      const box = await page.$eval('tbody tr:first-child img[alt="diff of bar"]', (i) => {
        const b = i.getBoundingClientRect();
        return { x: Math.round(b.x), y: Math.round(b.y), w: Math.round(b.width), h: Math.round(b.height) };
      });
      let red = 0;
      for (let y = box.y; y < box.y + box.h; y++) {
        for (let x = box.x; x < box.x + box.w; x++) {
          const i = (y * shot.width + x) * 4;
          if (shot.data[i]! > 200 && shot.data[i + 1]! < 60 && shot.data[i + 2]! < 110) red++;
        }
      }
      expect(red).to.be.above(20);
      if (process.env.GOLDEN_REPORT_SHOT) writeFileSync(process.env.GOLDEN_REPORT_SHOT, readFileSync(join(out, 'screenshot.png')));
    } finally {
      await browser.close();
    }
    rmSync(join(dir, 'new.json'));
  });

  it('goldens made by another renderer: a difference names the change', async () => {
    const record = join(dir, '.chartshot-renderer');
    const now = readFileSync(record, 'utf8');
    writeFileSync(record, now.replace(/chromium=\d+\./, 'chromium=1.'));
    try {
      const r = await cli('test', dir);
      expect(r.code).to.equal(1);
      expect(r.out).to.match(/^renderer changed: chromium 1 -> \d+ \(goldens were made with chartjs=4\.6\.1; chromium=1\./m);
      // matching goldens: nothing to explain
      rmSync(join(dir, 'bar.json'));
      const ok = await cli('test', dir);
      expect(ok.code).to.equal(0);
      expect(ok.out).not.to.contain('renderer changed');
    } finally {
      writeFileSync(record, now);
      write('bar.json', bar([12, 19, 3, 5]));
    }
  });

  it('a config the server would refuse is an error line (exit 1), not a crash', async () => {
    write('wide.json', { chart: BAR, width: 9000, height: 100 });
    write('typo.json', { chart: { type: 'barr', data: {} }, width: 100, height: 100 });
    write('deep.json', `{"chart":{"type":"bar","data":{},"options":${'{"a":'.repeat(70)}1${'}'.repeat(70)}},"width":100,"height":100}`);
    try {
      const r = await cli('test', dir);
      expect(r.code).to.equal(1);
      expect(r.out).to.match(/^error {3}deep {2}\(invalid_input: the body nests deeper than 64 levels\)$/m);
      expect(r.out).to.match(/^error {3}typo {2}\(invalid_input: chart\.type must be one of /m);
      expect(r.out).to.match(/^error {3}wide {2}\(invalid_dimensions: /m);
      expect(r.out).to.match(/^ok {6}bar$/m);
    } finally {
      rmSync(join(dir, 'wide.json'));
      rmSync(join(dir, 'typo.json'));
      rmSync(join(dir, 'deep.json'));
    }
  });

  it('on a terminal, a progress line is rewritten in place while it runs', async function () {
    // script(1) is part of bsdutils (util-linux), which scripts/setup.sh installs: a missing one fails here.
    expect(existsSync('/usr/bin/script'), '/usr/bin/script (bsdutils; run scripts/setup.sh)').to.equal(true);
    // script(1) gives the command a terminal as its stdout
    const r = await new Promise<string>((resolve) => {
      const p = spawn('/usr/bin/script', ['-q', '-c', `node dist/cli.js test '${dir}' --jobs 1`, '/dev/null'], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      p.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
      p.on('close', () => resolve(out));
    });
    expect(r).to.contain('[0/3] starting the renderer...');
    expect(r).to.contain('[1/3] rendering...\r\x1b[Kok      line');
    expect(r).to.match(/\r\x1b\[K3 configs: 3 ok|\n3 configs: 3 ok/);
  });

  it('bad usage and unreadable configs: exit 2 and one line naming the problem', async () => {
    const empty = join(root, 'empty');
    mkdirSync(empty);
    const cases: Array<[string[], RegExp]> = [
      [['test'], /test <dir> is required/],
      [['test', join(root, 'nope')], /nope is not a directory/],
      [['test', empty], /no \*\.json configs under/],
      [['test', dir, '--threshold', '2'], /--threshold must be a number from 0 to 1/],
      [['test', dir, '--threshold', 'abc'], /--threshold/],
      [['test', dir, '--max-diff-pixels', '-1'], /--max-diff-pixels/],
      [['test', dir, '--jobs', '0'], /--jobs must be/],
      [['test', dir, '--server', 'http://127.0.0.1:9'], /--server needs --api-key/],
      [['test', dir, '--api-key', 'k'], /--api-key goes with --server/],
      [['test', dir, 'extra'], /test takes one folder/],
    ];
    for (const [args, why] of cases) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).to.equal(2);
      expect(r.err.trim().split('\n'), args.join(' ')).to.have.length(1);
      expect(r.err, args.join(' ')).to.match(why);
    }
    write('broken.json', '{"chart": {');
    try {
      const r = await cli('test', dir);
      expect(r.code).to.equal(2);
      expect(r.err.trim().split('\n')).to.have.length(1);
      expect(r.err).to.contain(join(dir, 'broken.json')).and.match(/not valid JSON/);
      expect(r.out).to.equal('');
    } finally {
      rmSync(join(dir, 'broken.json'));
    }
  });
});
