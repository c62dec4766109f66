// npm run bench:pdf: a PNG drawn by Chromium made a PDF three ways, each in a process of its
// own: pdf-lib on the main thread (what chartshot did), the PDF written here on the main thread
// (src/render/pdfAssemble.ts: the PNG split into colour and alpha a row at a time), and the same
// in the PDF worker (src/render/pdf.ts); and, for an image without alpha (the white one
// re-encoded as RGB), the IDAT stream embedded without decoding. Per run: wall time, CPU of the
// process, the longest the event loop waited, peak RSS, PDF bytes. Then the built server
// (`dist/cli.js serve`, one page) answering an 800x400 and an 8000x8000 PDF (and the PNG of each)
// while GET /v1/status is asked every 20 ms: the PDF's time and size, and how long /v1/status
// took meanwhile; with PDF_BEFORE=<another built checkout>, that checkout's server too, side by
// side (PDF_SERVER_ONLY=1: only these). Writes bench/pdf-results.md.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { PDFDocument } from 'pdf-lib';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startPool } from '../src/render/renderer.js';
import { PdfConverter, pngToPdf } from '../src/render/pdf.js';
import { percentile, request } from './lib.js';
import { withCheckoutServer } from './server.js';

const METHODS = ['pdf-lib (main thread)', 'written here (main thread)', 'written here (worker)'] as const;
type Method = (typeof METHODS)[number];

async function pdfLib(png: Buffer, width: number, height: number): Promise<Buffer> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const img = await doc.embedPng(png);
  doc.addPage([width, height]).drawImage(img, { x: 0, y: 0, width, height });
  return Buffer.from(await doc.save());
}

/** One measurement, in this process (a child of the run): prints its figures as JSON. */
async function one(method: Method, file: string, ratio: number): Promise<void> {
  const png = readFileSync(file);
  const w = png.readUInt32BE(16) / ratio;
  const h = png.readUInt32BE(20) / ratio;
  const converter = new PdfConverter({ deadlineMs: 600_000, maxOutputBytes: 1024 * 1024 * 1024 });
  if (method === 'written here (worker)') await converter.convert(readFileSync(file), w, h); // the worker started and warm
  // the longest gap between ticks of a 5 ms interval: how long the event loop was held
  let peak = 0;
  let last = performance.now();
  let loopMax = 0;
  const sampler = setInterval(() => {
    const now = performance.now();
    loopMax = Math.max(loopMax, now - last);
    last = now;
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const pdf = method === 'pdf-lib (main thread)' ? await pdfLib(png, w, h) : method === 'written here (main thread)' ? await pngToPdf(png, w, h) : await converter.convert(png, w, h);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  // a conversion that held the loop to its end is seen once the loop turns again
  peak = Math.max(peak, process.memoryUsage.rss());
  await new Promise((r) => setTimeout(r, 20));
  clearInterval(sampler);
  await converter.close();
  console.log(JSON.stringify({ wallMs: Math.round(wallMs), cpuMs: Math.round((cpu.user + cpu.system) / 1000), loopMaxMs: Math.round(loopMax), peakRssMb: Math.round(peak / 1048576), pdfBytes: pdf.length }));
}

/** A checkout's server: each PDF (and PNG) asked once warm, then measured while /v1/status is polled. */
async function serverRows(dir: string, label: string, port: number, chart: unknown): Promise<string[]> {
  const env = { POOL_SIZE: '1', RENDER_TIMEOUT_MS: '120000', ACQUIRE_TIMEOUT_MS: '120000', MAX_IMAGE_BYTES: String(512 * 1024 * 1024) };
  return withCheckoutServer(dir, port, env, [], async (_server, key) => {
    const base = `http://127.0.0.1:${port}`;
    const rows: string[] = [];
    for (const [width, height] of [[800, 400], [8000, 8000]] as const) {
      for (const format of ['png', 'pdf'] as const) {
        const body = JSON.stringify({ chart, width, height, format });
        const agent = new http.Agent({ keepAlive: true });
        const statusAgent = new http.Agent({ keepAlive: true });
        await request(agent, base, 'POST', '/v1/chart', body, { 'x-api-key': key });
        let done = false;
        const t0 = performance.now();
        const answer = request(agent, base, 'POST', '/v1/chart', body, { 'x-api-key': key }).finally(() => (done = true));
        const status: number[] = [];
        while (!done) {
          const t = performance.now();
          await request(statusAgent, base, 'GET', '/v1/status');
          status.push(performance.now() - t);
          await new Promise((r) => setTimeout(r, 20));
        }
        const r = await answer;
        const ms = performance.now() - t0;
        agent.destroy();
        statusAgent.destroy();
        status.sort((a, b) => a - b);
        rows.push(`| ${label} | ${width}x${height} ${format} | ${r.status} | ${Math.round(ms)} | ${r.body.length} | ${status.length} | ${Math.round(percentile(status, 50))} | ${Math.round(status[status.length - 1] ?? NaN)} |`);
        console.log(rows[rows.length - 1]);
      }
    }
    return rows;
  });
}

async function main(): Promise<void> {
  if (process.argv[2] === '--one') return one(process.argv[3] as Method, process.argv[4]!, Number(process.argv[5]));
  execFileSync('npm', ['run', '--silent', 'build'], { stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'chartshot-pdf-bench-'));
  try {
    const config = { ...loadConfig({ LOG_LEVEL: 'silent', POOL_SIZE: '1', RENDER_TIMEOUT_MS: '120000', ACQUIRE_TIMEOUT_MS: '120000' }), dataDir: dir };
    const pool = await startPool(config, createLogger('silent'));
    const chart = {
      type: 'line',
      data: {
        labels: Array.from({ length: 50 }, (_, i) => `L${i}`),
        datasets: [
          { label: 'a', data: Array.from({ length: 50 }, (_, i) => Math.sin(i / 5) * 10), fill: true, backgroundColor: 'rgba(59,130,246,0.4)' },
          { label: 'b', data: Array.from({ length: 50 }, (_, i) => Math.cos(i / 7) * 8) },
        ],
      },
      options: { plugins: { title: { display: true, text: 'A large chart' } } },
    };
    const cases: { name: string; file: string; ratio: number }[] = [];
    for (const [name, side, ratio, bg] of [['8000x8000, transparent', 2000, 4, null], ['8000x8000, white', 2000, 4, 'white'], ['4000x4000, transparent', 2000, 2, null]] as const) {
      const r = await pool.render({ config: chart, width: side, height: side, devicePixelRatio: ratio, format: 'png', backgroundColor: bg, allowFunctions: false, watermark: null, maxImageBytes: 512 * 1024 * 1024 });
      const file = join(dir, `${cases.length}.png`);
      writeFileSync(file, Buffer.from(r.data, 'base64'));
      cases.push({ name, file, ratio });
    }
    await pool.close();
    // the white one as an RGB PNG: what embedding without decoding would take
    const white = PNG.sync.read(readFileSync(cases[1]!.file));
    const rgb = join(dir, 'rgb.png');
    writeFileSync(rgb, PNG.sync.write(white, { colorType: 2 }));
    const lines = [
      '# PNG to PDF (bench/pdf.ts)',
      '',
      `${new Date().toISOString()}, ${cpus().length} cores, load average at start ${loadavg().map((x) => x.toFixed(1)).join(' ')}; each run in a process of its own. "event loop" is the longest the process's event loop was held during the conversion (the longest gap between ticks of a 5 ms interval).`,
      '',
      '| image | how | wall ms | CPU ms (process) | event loop max ms | peak RSS MB | PDF bytes |',
      '|---|---|---|---|---|---|---|',
    ];
    const runs: { name: string; file: string; ratio: number; method: Method }[] = [];
    for (const c of cases) for (const m of METHODS) runs.push({ ...c, method: m });
    runs.push({ name: '8000x8000, white, re-encoded RGB (no alpha: not decoded)', file: rgb, ratio: 4, method: 'written here (worker)' });
    for (const r of process.env.PDF_SERVER_ONLY === '1' ? [] : runs) {
      const out = execFileSync('node', ['--import', 'tsx', 'bench/pdf.ts', '--one', r.method, r.file, String(r.ratio)], { encoding: 'utf8' });
      const m = JSON.parse(out.trim().split('\n').pop()!) as { wallMs: number; cpuMs: number; loopMaxMs: number; peakRssMb: number; pdfBytes: number };
      lines.push(`| ${r.name} | ${r.method} | ${m.wallMs} | ${m.cpuMs} | ${m.loopMaxMs} | ${m.peakRssMb} | ${m.pdfBytes} |`);
      console.log(lines[lines.length - 1]);
    }
    lines.push('', 'The built server (one page), each image asked once to warm it, then once while GET /v1/status was asked every 20 ms:', '', '| server | image | status | ms | bytes | /v1/status asked | /v1/status p50 ms | /v1/status max ms |', '|---|---|---|---|---|---|---|---|');
    const port = Number(process.env.BENCH_PORT ?? 18431);
    for (const [dir, label] of [...(process.env.PDF_BEFORE ? [[process.env.PDF_BEFORE, 'PDF_BEFORE'] as const] : []), [process.cwd(), 'this checkout'] as const]) lines.push(...(await serverRows(dir, label, port, chart)));
    lines.push('', `load average at the end ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    writeFileSync(join('bench', 'pdf-results.md'), lines.join('\n') + '\n');
    console.log(lines.join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
