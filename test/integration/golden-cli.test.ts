// `chartshot test`: goldens written, matched, differing, missing; exit codes; the report as
// Chromium shows it; the renderer record; renders through a running server (built dist/cli.js).
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer, { type KeyInput } from 'puppeteer-core';
import { startTestServer, testConfig, BAR, type TestServer } from '../helpers/server.js';
import { apiKey, bytes, post } from '../helpers/client.js';
import { decodePng } from '../helpers/images.js';

interface Run {
  code: number | null;
  out: string;
  err: string;
}

/** The built command, run without blocking this process (a server in it may have to answer). */
function chartshot(dataDir: string, env: Record<string, string>, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    // CI and GITHUB_ACTIONS of the machine running the suite are not the command's
    const { CI: _ci, GITHUB_ACTIONS: _gh, ...base } = process.env;
    const p = spawn('node', ['dist/cli.js', ...args], { env: { ...base, DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
  // each run starts Chromium: generous, for a loaded machine
  this.timeout(900_000);
  let root: string;
  let dir: string;
  let dataDir: string;
  // One server for the whole file: tests of what the command does with what it is given render
  // through it (--server), so Chromium starts once for them rather than once per run. The
  // offline engine (Chromium in the command) is what the first tests, the parts verdict and the
  // terminal test use; both engines draw the same bytes (the second test).
  let server: TestServer;
  let serverKey: string;
  const cli = (...args: string[]) => chartshot(dataDir, {}, ...args);
  const cliEnv = (env: Record<string, string>, ...args: string[]) => chartshot(dataDir, env, ...args);
  const viaServer = (...args: string[]) => cli(...args, '--server', server.url, '--api-key', serverKey);
  const viaServerEnv = (env: Record<string, string>, ...args: string[]) => cliEnv(env, ...args, '--server', server.url, '--api-key', serverKey);
  const write = (name: string, body: unknown) => {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), typeof body === 'string' ? body : JSON.stringify(body));
  };

  before(async () => {
    if (!existsSync('dist/cli.js')) throw new Error('dist/cli.js missing: run npm run build');
    server = await startTestServer({ poolSize: 1 });
    serverKey = (await server.account('enterprise')).api_key;
    root = mkdtempSync(join(tmpdir(), 'chartshot-golden-'));
    dataDir = join(root, 'data');
    dir = join(root, 'charts');
    mkdirSync(dataDir);
    write('bar.json', bar([12, 19, 3, 5]));
    write('line.json', line);
    write('more/pie.json', pie);
  });
  after(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('without goldens each config is missing (exit 1); CI=true writes nothing; --update=missing writes them and the renderer (exit 0); then all match', async () => {
    const first = await cli('test', dir);
    expect(first.code, first.err).to.equal(1);
    expect(first.out.split('\n').slice(0, 3)).to.deep.equal([
      'missing bar  (no golden image (write it with --update=missing))',
      'missing line  (no golden image (write it with --update=missing))',
      'missing more/pie  (no golden image (write it with --update=missing))',
    ]);
    expect(first.out).to.match(/^3 configs: 0 ok, 0 differ, 3 missing, 0 errors \(\d+\.\d s\)$/m);
    // not a terminal: no progress line
    expect(first.out).not.to.contain('\r');
    const ci = await cliEnv({ CI: 'true' }, 'test', dir);
    expect(ci.code).to.equal(1);
    expect(ci.out).to.contain('missing bar  (no golden image (CI: nothing is written without --update))');
    expect(existsSync(join(dir, 'bar.png')) || existsSync(join(dir, '.chartshot-renderer'))).to.equal(false);

    const update = await cliEnv({ CI: 'true' }, 'test', dir, '--update=missing');
    expect(update.code, update.err).to.equal(0);
    expect(update.out).to.contain('updated bar  (golden written)');
    expect(decodePng(readFileSync(join(dir, 'bar.png')))).to.include({ width: 400, height: 200 });
    expect(readFileSync(join(dir, 'line.svg'), 'utf8')).to.match(/^<svg /);
    expect(existsSync(join(dir, 'more', 'pie.png'))).to.equal(true);
    expect(readFileSync(join(dir, '.chartshot-renderer'), 'utf8')).to.match(/^chartjs=4\.6\.1; chromium=\d+\.\d+\.\d+\.\d+; fonts=[0-9a-f]{8}; timezone=UTC; locale=en-US\n$/);

    const again = await cli('test', dir, '--jobs', '1');
    expect(again.code, again.out + again.err).to.equal(0);
    expect(again.out.split('\n').slice(0, 4)).to.deep.equal(['ok      bar', 'ok      line', 'ok      more/pie', again.out.split('\n')[3]!]);
    expect(again.out).to.match(/^3 configs: 3 ok, 0 differ, 0 missing, 0 errors/m);
  });

  it('the server renders the goldens the command wrote, byte for byte (PNG and SVG)', async () => {
    for (const [cfg, golden] of [[bar([12, 19, 3, 5]), 'bar.png'], [line, 'line.svg'], [pie, 'more/pie.png']] as const) {
      const res = await post(server.url, '/v1/chart', cfg, apiKey(serverKey));
      expect(res.status, golden).to.equal(200);
      expect((await bytes(res)).equals(readFileSync(join(dir, golden))), golden).to.equal(true);
    }
    // and through the command's --server mode, with the typed client
    const served = await viaServer('test', dir);
    expect(served.code, served.out + served.err).to.equal(0);
    expect(served.out).to.match(/^3 configs: 3 ok/m);
    // parts through the server: its X-Chartshot-Parts boxes mask the legend as offline ones do
    const srv = join(root, 'srv');
    const legend = (label: string) => ({ chart: { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ label: 'one', data: [3, 5] }, { label, data: [4, 1] }] } }, width: 400, height: 200, backgroundColor: 'white' });
    mkdirSync(srv);
    writeFileSync(join(srv, 'legend.json'), JSON.stringify(legend('two')));
    writeFileSync(join(srv, 'legend.golden.json'), JSON.stringify({ ignore: ['legend'] }));
    expect((await viaServer('test', srv, '--update')).code).to.equal(0);
    writeFileSync(join(srv, 'legend.json'), JSON.stringify(legend('second')));
    const masked = await viaServer('test', srv);
    expect(masked.code, masked.out + masked.err).to.equal(0);
    expect(masked.out).to.match(/^ok {6}legend$/m);
    rmSync(srv, { recursive: true, force: true });
    const badKey = await cli('test', dir, '--server', server.url, '--api-key', 'live_nope');
    expect(badKey.code).to.equal(1);
    expect(badKey.out).to.contain('error   bar  (unauthorized: ');
  });

  it('a changed chart differs by its pixel count; the tolerance flags let a small change pass', async () => {
    write('bar.json', bar([12, 19, 4, 5]));
    const r = await cli('test', dir);
    expect(r.code).to.equal(1);
    const m = /^differs bar {2}\((\d+) of 80000 pixels[^)]*\)[;)]/m.exec(r.out);
    expect(m, r.out).not.to.equal(null);
    const n = Number(m![1]);
    expect(n).to.be.within(50, 8000);
    // the bar grew inside the chart area; title, legend and the x scale did not move
    expect(r.out).to.match(/^differs bar .*legend identical, chartArea changed \(\d+ px\), x identical/m);
    expect(r.out).to.contain('ok      line');
    expect((await cli('test', dir, '--max-diff-pixels', String(n))).code).to.equal(0);
    const ratio = await cli('test', dir, '--max-diff-ratio', String((n - 1) / 80000));
    expect(ratio.code).to.equal(1);
  });

  it('--update=missing writes only new goldens; --update=changed rewrites the failing ones and leaves the rest', async () => {
    write('new.json', bar([1, 2, 3, 4]));
    const barBefore = readFileSync(join(dir, 'bar.png'));
    const lineStat = statSync(join(dir, 'line.svg')).mtimeMs;
    const missing = await viaServer('test', dir, '--update=missing');
    expect(missing.code).to.equal(1);
    expect(missing.out).to.contain('updated new  (golden written)');
    expect(missing.out).to.match(/^differs bar /m);
    expect(readFileSync(join(dir, 'bar.png')).equals(barBefore)).to.equal(true);
    const changed = await viaServer('test', dir, '--update=changed');
    expect(changed.code, changed.out).to.equal(0);
    expect(changed.out).to.match(/^updated bar {2}\(golden rewritten\)$/m);
    expect(changed.out).to.match(/^ok {6}new$/m);
    expect(readFileSync(join(dir, 'bar.png')).equals(barBefore)).to.equal(false);
    expect(statSync(join(dir, 'line.svg')).mtimeMs).to.equal(lineStat);
    rmSync(join(dir, 'new.json'));
    // its golden is left, and listed as stale
    const stale = await viaServer('test', dir);
    expect(stale.code).to.equal(0);
    expect(stale.out).to.contain('stale goldens (no case uses them): new.png');
    rmSync(join(dir, 'new.png'));
    write('bar.json', bar([12, 19, 3, 5]));
    expect((await viaServer('test', dir, '--update')).code).to.equal(0);
  });

  it('masks by chart part, measured in the page: a legend change passes when the legend is ignored, and the verdict names the parts', async () => {
    const two = (label: string) => ({
      chart: { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ label: 'one', data: [3, 5] }, { label, data: [4, 1] }] }, options: { plugins: { title: { display: true, text: 'Parts' } } } },
      width: 400,
      height: 200,
      backgroundColor: 'white',
    });
    const parts = join(dir, 'parts');
    const put = (name: string, body: unknown) => write(`parts/${name}`, body);
    for (const n of ['ignored', 'only', 'plain', 'masked']) put(`${n}.json`, two('two'));
    put('ignored.golden.json', { ignore: ['legend'] });
    put('only.golden.json', { only: ['chartArea', 'x', 'y'] });
    // the legend's row of a 400x200 chart with a title: a mask in CSS pixels covers it
    put('masked.golden.json', { mask: [{ x: 0, y: 30, width: 400, height: 40 }] });
    expect((await viaServer('test', parts, '--update')).code).to.equal(0);
    for (const n of ['ignored', 'only', 'plain', 'masked']) put(`${n}.json`, two('second'));
    const r = await viaServer('test', parts);
    expect(r.code, r.out + r.err).to.equal(1);
    expect(r.out).to.match(/^ok {6}ignored$/m);
    expect(r.out).to.match(/^ok {6}only$/m);
    expect(r.out).to.match(/^ok {6}masked$/m);
    expect(r.out).to.match(/^differs plain {2}\(\d+ of 80000 pixels.*; title identical, legend changed \(\d+ px\), chartArea identical, x identical, y identical\)$/m);
    // a part the chart does not have: exit 2, naming the parts it has
    put('only.golden.json', { only: ['y9'] });
    const bad = await viaServer('test', parts);
    expect(bad.code).to.equal(2);
    expect(bad.err).to.contain(`${join(parts, 'only.golden.json')}: no part "y9" in this chart: its parts are chartArea, title, legend, x, y`);
    // an option that is not one: exit 2 before anything renders, naming the allowed ones
    put('only.golden.json', { onlyy: ['x'] });
    const typo = await viaServer('test', parts);
    expect(typo.code).to.equal(2);
    expect(typo.err).to.match(/unknown option "onlyy": allowed are ignore, only, mask, maxDiffPixels, maxDiffRatio, window/);
    expect(typo.out).to.equal('');
    rmSync(parts, { recursive: true, force: true });
  });

  it('bad input is a failing case: a config the API refuses carries its code; an unreadable or corrupt golden is "golden unreadable" and is never overwritten without --update', async () => {
    const bad = join(root, 'bad');
    mkdirSync(bad);
    writeFileSync(join(bad, 'refused.json'), JSON.stringify({ chart: BAR, width: 100, height: 100, format: 'gif' }));
    writeFileSync(join(bad, 'corrupt.json'), JSON.stringify(bar([1, 2, 3, 4])));
    writeFileSync(join(bad, 'corrupt.png'), 'not a png at all');
    writeFileSync(join(bad, 'folder.json'), JSON.stringify(bar([1, 2, 3, 4])));
    mkdirSync(join(bad, 'folder.png'));
    const r = await viaServer('test', bad, '--update=missing');
    expect(r.code, r.out + r.err).to.equal(1);
    expect(r.out).to.match(/^error {3}refused {2}\(invalid_input: format must be one of png, svg, pdf\)$/m);
    expect(r.out).to.match(/^unreadable corrupt {2}\(golden unreadable: not a PNG\)$/m);
    expect(r.out).to.match(/^unreadable folder {2}\(golden unreadable: EISDIR\)$/m);
    expect(readFileSync(join(bad, 'corrupt.png'), 'utf8')).to.equal('not a png at all');
    const fixed = await viaServer('test', bad, '--update=changed');
    expect(fixed.out).to.match(/^updated corrupt {2}\(golden rewritten \(it was not a readable PNG\)\)$/m);
    expect(decodePng(readFileSync(join(bad, 'corrupt.png')))).to.include({ width: 400 });
    rmSync(bad, { recursive: true, force: true });
  });

  it('the report: one self-contained page, failures then unstable cases, the six views and the keyboard work in Chromium; JUnit, summary.md, annotations; exit 3 when only unstable', async () => {
    const rep = join(root, 'rep');
    mkdirSync(rep);
    const flaky = {
      chart: { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ label: 'r', data: [1, 2], backgroundColor: "function(){var t=performance.now();return 'rgb('+(Math.floor(t*10)%256)+','+(Math.floor(t/25.6)%256)+',0)'}" }] } },
      width: 200,
      height: 100,
      backgroundColor: 'white',
    };
    writeFileSync(join(rep, 'flaky.json'), JSON.stringify(flaky));
    writeFileSync(join(rep, 'bar.json'), JSON.stringify(bar([12, 19, 3, 5])));
    writeFileSync(join(rep, 'same.json'), JSON.stringify(pie));
    expect((await viaServer('test', rep, '--update')).code).to.equal(0);
    // only the flaky case fails: it draws differently every time
    const out1 = join(root, 'report-unstable');
    const unstable = await viaServerEnv({ GITHUB_ACTIONS: 'true' }, 'test', rep, '--report', out1);
    expect(unstable.code, unstable.out + unstable.err).to.equal(3);
    expect(unstable.out).to.match(/^unstable flaky {2}\(two renders of the same config differ; against the golden: \d+ of 20000 pixels/m);
    expect(unstable.out).to.match(/^::warning file=.*flaky\.json,title=chartshot unstable%3A flaky::two renders/m);
    for (const f of ['flaky.actual.png', 'flaky.again.png', 'flaky.golden.png', 'flaky.diff.png']) expect(existsSync(join(out1, f)), f).to.equal(true);

    writeFileSync(join(rep, 'bar.json'), JSON.stringify(bar([12, 19, 4, 5])));
    writeFileSync(join(rep, 'new.json'), JSON.stringify(bar([1, 2, 3, 4])));
    const out = join(root, 'report');
    const r = await viaServerEnv({ GITHUB_ACTIONS: 'true' }, 'test', rep, '--report', out);
    expect(r.code).to.equal(1);
    expect(r.out).to.match(/^::error file=[^,]*bar\.json,title=chartshot differs%3A bar::\d+ of 80000 pixels/m);
    expect(r.out).to.match(/^::error file=[^,]*new\.json,title=chartshot missing%3A new::no golden image/m);
    const junit = readFileSync(join(out, 'junit.xml'), 'utf8');
    expect(junit).to.match(/<testsuites name="chartshot" tests="4" failures="3" errors="0"/);
    expect(junit).to.match(/<testcase classname="chartshot.golden" name="bar" time="[\d.]+">\s*<failure message="differs: \d+ of 80000 pixels/);
    const summary = readFileSync(join(out, 'summary.md'), 'utf8');
    expect(summary).to.match(/^### chartshot golden images: 4 configs: 1 ok, 1 differ, 1 missing, 0 errors, 1 unstable/);
    expect(summary).to.match(/\| bar \| differs \| \d+ of 80000 pixels/);

    const browser = await puppeteer.launch({ executablePath: testConfig().chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-dev-shm-usage'] });
    try {
      const page = await browser.newPage();
      const requests: string[] = [];
      const errors: string[] = [];
      page.on('request', (q) => requests.push(q.url()));
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => errors.push(m.text()));
      await page.setViewport({ width: 1300, height: 900 });
      // the page alone, moved away from its folder: nothing else is needed
      const alone = join(root, 'alone.html');
      writeFileSync(alone, readFileSync(join(out, 'index.html')));
      await page.goto(pathToFileURL(alone).href, { waitUntil: 'load' });
      const seen = await page.evaluate(() => ({
        title: document.querySelector('h1')!.textContent,
        sections: Array.from(document.querySelectorAll('h2')).map((h) => h.textContent),
        cards: Array.from(document.querySelectorAll('.case')).map((c) => [c.getAttribute('data-name'), c.querySelector('.badge')!.textContent]),
        fingerprints: Array.from(document.querySelectorAll('.meta code')).map((c) => c.textContent),
      }));
      expect(seen.title).to.match(/^4 configs: 1 ok, 1 differ, 1 missing, 0 errors, 1 unstable/);
      expect(seen.sections).to.deep.equal(['Failures (2)', 'Unstable (1): two renders of the same config differed', 'Passed (1)']);
      expect(seen.cards).to.deep.equal([['bar', 'differs'], ['new', 'missing'], ['flaky', 'unstable']]);
      expect(seen.fingerprints[0]).to.match(/^chartjs=4\.6\.1; chromium=/);
      expect(seen.fingerprints[1]).to.equal(readFileSync(join(rep, '.chartshot-renderer'), 'utf8').trim());
      /** The images of the first card as shown now: which are visible, their size, and the top one's clip and opacity. */
      const shown = () =>
        page.$eval('.case', (card) =>
          Array.from(card.querySelectorAll('img'))
            .filter((i) => i.getBoundingClientRect().width > 0)
            .map((i) => ({ cls: i.className, w: i.naturalWidth, clip: getComputedStyle(i).clipPath, opacity: getComputedStyle(i).opacity })),
        );
      // a failing case opens on its diff
      expect((await shown()).map((i) => i.cls)).to.deep.equal(['diff']);
      expect((await shown())[0]!.w).to.equal(400);
      // the keyboard: 1-6 the views, j/k the cases, left/right the slider
      const views: Array<[KeyInput, string[]]> = [
        ['1', ['expected']],
        ['2', ['actual']],
        ['3', ['diff']],
        ['4', ['expected', 'actual']],
        ['5', ['expected', 'actual']],
        ['6', ['expected', 'actual']],
      ];
      for (const [key, classes] of views) {
        await page.keyboard.press(key);
        expect((await shown()).map((i) => i.cls), `view ${key}`).to.deep.equal(classes);
      }
      // blend: the actual image over the expected at half opacity; right arrow adds 5%
      expect((await shown())[1]!.opacity).to.equal('0.5');
      await page.keyboard.press('ArrowRight');
      expect((await shown())[1]!.opacity).to.equal('0.55');
      // slider: the actual image clipped from the left at the range's position
      await page.click('.case button[data-view="slider"]');
      expect((await shown())[1]!.clip).to.equal('inset(0px 0px 0px 55%)');
      await page.keyboard.press('ArrowLeft');
      expect((await shown())[1]!.clip).to.equal('inset(0px 0px 0px 50%)');
      await page.screenshot({ path: join(out, 'screenshot.png') });
      // the side by side view draws both images, left and right
      await page.keyboard.press('4');
      const pair = await page.$$eval('.case:first-of-type .pair img', (imgs) => imgs.map((i) => Math.round(i.getBoundingClientRect().x)));
      expect(pair).to.have.length(2);
      expect(pair[1]!).to.be.above(pair[0]! + 300);
      // j moves to the next case (the missing one: only its actual image; no diff button)
      await page.keyboard.press('j');
      const current = await page.evaluate(() => [document.querySelector('.case.current')?.getAttribute('data-name'), document.activeElement?.getAttribute('data-name')]);
      expect(current).to.deep.equal(['new', 'new']);
      expect(await page.$eval('.case.current button[data-view="diff"]', (b) => (b as HTMLButtonElement).disabled)).to.equal(true);
      await page.keyboard.press('j');
      expect(await page.$eval('.case.current', (c) => c.getAttribute('data-name'))).to.equal('flaky');
      expect(await page.$$eval('.case.current .pair figcaption', (f) => f.map((x) => x.textContent))).to.deep.equal(['expected (golden)', 'actual', 'second render']);
      await page.keyboard.press('k');
      expect(await page.$eval('.case.current', (c) => c.getAttribute('data-name'))).to.equal('new');
      expect(requests.every((u) => u.startsWith('file://') || u.startsWith('data:')), requests.join(' ')).to.equal(true);
      expect(errors, errors.join('\n')).to.deep.equal([]);
      if (process.env.GOLDEN_REPORT_SHOT) writeFileSync(process.env.GOLDEN_REPORT_SHOT, readFileSync(join(out, 'screenshot.png')));
    } finally {
      await browser.close();
    }
  });

  it('--shard i/n runs every n-th case; test merge joins the shards into one report and one JUnit', async () => {
    const rep = join(root, 'rep');
    const shards = [1, 2].map((i) => join(root, `shard-${i}`));
    const runs = await Promise.all(shards.map((out, i) => viaServer('test', rep, '--shard', `${i + 1}/2`, '--report', out, '--jobs', '1')));
    expect(runs.map((r) => r.out.match(/^\d+ configs/m)![0])).to.deep.equal(['2 configs', '2 configs']);
    const merged = join(root, 'merged');
    const m = await cli('test', 'merge', ...shards, '--report', merged);
    expect(m.code, m.out + m.err).to.equal(1);
    expect(m.out).to.match(/^4 configs: 1 ok, 1 differ, 1 missing, 0 errors, 1 unstable/m);
    const junit = readFileSync(join(merged, 'junit.xml'), 'utf8');
    expect([...junit.matchAll(/<testcase classname="[^"]*" name="([^"]+)"/g)].map((m) => m[1])).to.deep.equal(['bar', 'flaky', 'new', 'same']);
    expect(readFileSync(join(merged, 'index.html'), 'utf8')).to.contain('(shards 1/2, 2/2)');
    expect(existsSync(join(merged, 'bar.diff.png'))).to.equal(true);
    const twice = await cli('test', 'merge', shards[0]!, shards[0]!, '--report', join(root, 'merged2'));
    expect(twice.code).to.equal(2);
    expect(twice.err).to.match(/case bar is in two reports/);
    const notReport = await cli('test', 'merge', rep);
    expect(notReport.code).to.equal(2);
    expect(notReport.err).to.match(/results\.json: missing \(not a report folder of chartshot test --report\)/);
  });

  it('goldens made by another renderer: a difference names the change', async () => {
    const record = join(dir, '.chartshot-renderer');
    const now = readFileSync(record, 'utf8');
    writeFileSync(record, now.replace(/chromium=\d+\./, 'chromium=1.'));
    write('bar.json', bar([12, 19, 4, 5]));
    try {
      const r = await viaServer('test', dir);
      expect(r.code).to.equal(1);
      expect(r.out).to.match(/^renderer changed: chromium 1 -> \d+ \(goldens were made with chartjs=4\.6\.1; chromium=1\./m);
      // matching goldens: nothing to explain
      rmSync(join(dir, 'bar.json'));
      const ok = await viaServer('test', dir);
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
      const r = await viaServer('test', dir);
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
      [['test', dir, '--update=sometimes'], /--update must be one of missing, changed, all \(alone: all\), got "sometimes"/],
      [['test', dir, '--shard', '3/2'], /--shard must be i\/n with 1 <= i <= n/],
      [['test', dir, '--max-diff-window', '8'], /--max-diff-window must be N:K/],
      [['test', dir, '--max-diff-ratio', '2'], /--max-diff-ratio must be a number from 0 to 1/],
      [['test', dir, '--nope'], /Unknown option '--nope'/],
      [['test', 'merge'], /test merge <report-dir>\.\.\. is required/],
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
