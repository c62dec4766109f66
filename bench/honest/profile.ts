// Where a render's CPU goes when it is not drawing (issue 27 item 2): the honest corpus at 4 in
// flight against a server started with Node's --cpu-prof, while Chromium records a trace of all
// its processes (CDP Tracing, through a --remote-debugging-port added by a wrapper given as
// CHROMIUM_PATH) and a V8 CPU profile of each renderer page (CDP Profiler), with the CPU split
// by process around the same window. Nothing in src/ changes.
// Run: node --import tsx bench/honest/profile.ts (after npm run build; about a minute on a quiet
// machine). BENCH_PROFILE_SECONDS (default 15); BENCH_PROFILE_BAR=1: a 100x100 bar at 1 in flight;
// BENCH_PROFILE_WARM: renders before the window (default 1,000 bars or 96 corpus renders). Writes bench/honest/profile.json and prints a summary.
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type CDPSession, type Protocol } from 'puppeteer-core';
import { loadConfig } from '../../src/config.js';
import { loadSamples } from '../lib.js';
import { barBody, posts } from '../compare.js';
import { benchAccount, startServer, stopServer } from '../server.js';
import { generateCorpus, DEFAULT_SEED } from './corpus.js';
import { cpuSnapshot, perRender, splitDelta } from './procs.js';

const PORT = Number(process.env.BENCH_PORT ?? 18080);
const BASE = `http://127.0.0.1:${PORT}`;
const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 15);
const r1 = (x: number) => Math.round(x * 10) / 10;

/** The pid of the Chromium browser process under the server, and its DevTools endpoint. */
function devtoolsOf(serverPid: number): { pid: number; ws: string } {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const s = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  const under = (pid: number): boolean => pid === serverPid || (pid > 1 && parent.has(pid) && under(parent.get(pid)!));
  for (const pid of parent.keys()) {
    if (!under(pid) || pid === serverPid) continue;
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (!cmd.some((a) => a.includes('chrom')) || cmd.some((a) => a.startsWith('--type='))) continue;
    const dir = cmd.find((a) => a.startsWith('--user-data-dir='))?.slice('--user-data-dir='.length);
    if (!dir) continue;
    const [port, path] = readFileSync(join(dir, 'DevToolsActivePort'), 'utf8').trim().split('\n');
    return { pid, ws: `ws://127.0.0.1:${port}${path}` };
  }
  throw new Error('no Chromium browser process with a DevTools port under the server');
}

interface TraceEvent {
  ph: string;
  name: string;
  cat: string;
  pid: number;
  tid: number;
  ts: number;
  dur?: number;
  /** thread (CPU) time of the event, when Chromium recorded it */
  tdur?: number;
  args?: { name?: string };
}

/**
 * Self time (ms) by event name, per process and thread, from the trace's complete events:
 * thread (CPU) time where the event has it (tdur), else wall time; nesting by wall time.
 */
function traceSelfTimes(events: TraceEvent[]): Record<string, Array<[string, number]>> {
  const procName = new Map<number, string>();
  const threadName = new Map<string, string>();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'process_name') procName.set(e.pid, e.args?.name ?? '?');
    if (e.ph === 'M' && e.name === 'thread_name') threadName.set(`${e.pid}/${e.tid}`, e.args?.name ?? '?');
  }
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of events) {
    if (e.ph !== 'X' || e.dur === undefined) continue;
    const k = `${e.pid}/${e.tid}`;
    const list = byThread.get(k) ?? [];
    list.push(e);
    byThread.set(k, list);
  }
  const out: Record<string, Map<string, number>> = {};
  for (const [k, list] of byThread) {
    list.sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
    const pid = Number(k.split('/')[0]);
    const kind = `${procName.get(pid) ?? 'pid ' + pid} / ${threadName.get(k) ?? 'thread'}`;
    const m = (out[kind] ??= new Map());
    // self time: an event's duration minus its direct children's
    const stack: Array<{ e: TraceEvent; child: number }> = [];
    const close = (until: number) => {
      while (stack.length && stack.at(-1)!.e.ts + stack.at(-1)!.e.dur! <= until) {
        const top = stack.pop()!;
        const own = top.e.tdur ?? top.e.dur!;
        m.set(top.e.name, (m.get(top.e.name) ?? 0) + Math.max(0, own - top.child) / 1000);
        if (stack.length) stack.at(-1)!.child += own;
      }
    };
    for (const e of list) {
      close(e.ts);
      stack.push({ e, child: 0 });
    }
    close(Infinity);
  }
  const result: Record<string, Array<[string, number]>> = {};
  for (const [kind, m] of Object.entries(out)) {
    const total = [...m.values()].reduce((s, v) => s + v, 0);
    if (total < 50) continue;
    result[`${kind} (${r1(total)} ms)`] = [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([n, v]) => [n, r1(v)]);
  }
  return result;
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

/** Self time (ms) by function and by where it comes from, from a V8 CPU profile. */
function profileSelfTimes(p: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number }, group: (url: string, fn: string, line: number) => string, windowUs?: [number, number]) {
  const self = new Map<number, number>();
  // a sample's time: the profile's start plus the deltas so far (CLOCK_MONOTONIC microseconds,
  // the clock of process.hrtime); outside the window (e.g. the server's start) it does not count
  let t = p.startTime;
  let inWindow = 0;
  p.samples.forEach((id, i) => {
    t += p.timeDeltas[i] ?? 0;
    if (windowUs && (t < windowUs[0] || t > windowUs[1])) return;
    inWindow++;
    self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0) / 1000);
  });
  const byFn = new Map<string, number>();
  const byGroup = new Map<string, number>();
  let total = 0;
  for (const n of p.nodes) {
    const ms = self.get(n.id) ?? 0;
    if (!ms) continue;
    const f = n.callFrame;
    const file = f.url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/(src|dist|renderer-page)\//, '$1/');
    const fnKey = `${f.functionName || '(anonymous)'} ${file}:${f.lineNumber + 1}`;
    byFn.set(fnKey, (byFn.get(fnKey) ?? 0) + ms);
    const g = group(f.url, f.functionName, f.lineNumber + 1);
    byGroup.set(g, (byGroup.get(g) ?? 0) + ms);
    if (g !== '(idle)') total += ms;
  }
  const top = (m: Map<string, number>, k: number) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, k).map(([n, v]) => [n, r1(v), `${r1((100 * v) / total)}%`]);
  return { busyMs: r1(total), samples: inWindow, byGroup: top(byGroup, 15), byFunction: top(byFn, 25) };
}

function nodeGroup(url: string, fn: string): string {
  if (!url) return fn.startsWith('(') ? fn : '(native / V8 builtins)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1];
  if (pkg) return `npm: ${pkg}`;
  if (url.startsWith('node:')) return `node: ${url.slice(5).split('/').slice(0, 2).join('/')}`;
  const own = /\/(dist|src)\/(.+?)\.(js|ts)$/.exec(url);
  return own ? `chartshot: ${own[2]!.split('/').slice(0, 2).join('/')}` : url;
}

/**
 * Which script of the renderer page a line of harness.html belongs to: the server inlines each
 * `<script src>` in place (src/render/harness.ts), so a script starts on its tag's line.
 */
function harnessScripts(): Array<{ from: number; to: number; name: string }> {
  const dir = new URL('../../renderer-page/', import.meta.url);
  const lines = readFileSync(new URL('harness.html', dir), 'utf8').split('\n');
  const out: Array<{ from: number; to: number; name: string }> = [];
  let extra = 0;
  lines.forEach((line, i) => {
    const src = /<script src="([^"]+)"><\/script>/.exec(line)?.[1];
    if (!src) return;
    const n = readFileSync(new URL(src, dir), 'utf8').split('\n').length;
    out.push({ from: i + 1 + extra, to: i + 1 + extra + n - 1, name: src });
    extra += n - 1;
  });
  return out;
}
const SCRIPTS = harnessScripts();

function pageGroup(url: string, fn: string, line = 0): string {
  if (!url) return fn.startsWith('(') ? fn : '(native: canvas, PNG encoder, DOM, builtins)';
  const script = SCRIPTS.find((x) => line >= x.from && line <= x.to);
  return script ? script.name : url.split('/').pop()!;
}

async function main() {
  const corpus = generateCorpus(Number(process.env.BENCH_SEED ?? DEFAULT_SEED));
  const dataDir = mkdtempSync(join(tmpdir(), 'chartshot-profile-'));
  const profDir = mkdtempSync(join(tmpdir(), 'chartshot-cpuprof-'));
  const wrapDir = mkdtempSync(join(tmpdir(), 'chartshot-devtools-'));
  chmodSync(wrapDir, 0o755); // Chromium may run as another user
  const chromium = loadConfig({ ...process.env, DATA_DIR: dataDir }).chromiumPath;
  const wrapper = join(wrapDir, 'chromium');
  writeFileSync(wrapper, `#!/bin/sh\nexec '${chromium.replace(/'/g, `'\\''`)}' --remote-debugging-port=0 "$@"\n`, { mode: 0o755 });
  const out: Record<string, unknown> = { date: new Date().toISOString(), seconds: SECONDS, corpus: corpus.length };
  try {
    const acct = benchAccount(dataDir);
    const headers = { 'x-api-key': acct.api_key };
    const server = await startServer(dataDir, PORT, { CHROMIUM_PATH: wrapper }, ['--cpu-prof', `--cpu-prof-dir=${profDir}`]);
    const BAR = process.env.BENCH_PROFILE_BAR === '1';
    const list = BAR ? [barBody('bar', 100, 100)] : corpus.map((e) => e.body);
    const conc = BAR ? 1 : 4;
    const make = posts(list, headers);
    let windowUs: [number, number] | undefined;
    try {
      await loadSamples(BASE, conc, Number(process.env.BENCH_PROFILE_WARM ?? (BAR ? 1000 : corpus.length * 2)), make); // warm
      const dt = devtoolsOf(server.pid!);
      const browser = await puppeteer.connect({ browserWSEndpoint: dt.ws, defaultViewport: null });
      const bsession = await browser.target().createCDPSession();
      const chunks: TraceEvent[] = [];
      bsession.on('Tracing.dataCollected', (d: { value: TraceEvent[] }) => chunks.push(...d.value));
      const done = new Promise<void>((resolve) => bsession.once('Tracing.tracingComplete', () => resolve()));
      // one V8 profile per pool page (pages made during the window are not profiled)
      const pages: CDPSession[] = [];
      for (const t of browser.targets()) {
        if (t.type() !== 'page') continue;
        const s = await t.createCDPSession();
        await s.send('Profiler.enable');
        await s.send('Profiler.setSamplingInterval', { interval: 250 });
        pages.push(s);
      }
      await bsession.send('Tracing.start', {
        transferMode: 'ReportEvents',
        traceConfig: { recordMode: 'recordContinuously', includedCategories: ['toplevel', 'devtools.timeline', 'v8', 'v8.execute', 'blink', 'cc', 'ipc', 'mojom', 'disabled-by-default-devtools.timeline', 'renderer.scheduler', 'gpu', 'skia', 'image_decode'] },
      } as never);
      for (const s of pages) await s.send('Profiler.start');
      const before = cpuSnapshot({ server: server.pid!, loadGenerator: process.pid });
      const w0 = Number(process.hrtime.bigint() / 1000n);
      const t0 = Date.now();
      let renders = 0;
      let errors = 0;
      while (Date.now() - t0 < SECONDS * 1000) {
        const r = await loadSamples(BASE, conc, BAR ? 100 : corpus.length, make);
        renders += r.result.requests;
        errors += r.result.errors;
      }
      const after = cpuSnapshot({ server: server.pid!, loadGenerator: process.pid });
      windowUs = [w0, Number(process.hrtime.bigint() / 1000n)];
      const wall = (Date.now() - t0) / 1000;
      const profiles: Protocol.Profiler.Profile[] = [];
      for (const s of pages) profiles.push((await s.send('Profiler.stop').catch(() => ({ profile: null }))).profile!);
      await bsession.send('Tracing.end');
      await done;
      await browser.disconnect();
      out.load = { renders, errors, seconds: r1(wall), perSecond: r1(renders / wall), cpuPerRender: perRender(splitDelta(before, after), renders) };
      out.trace = traceSelfTimes(chunks);
      out.renderers = profiles.filter(Boolean).map((p) => profileSelfTimes(p as never, pageGroup));
    } finally {
      await stopServer(server);
    }
    const file = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    if (file) out.node = profileSelfTimes(JSON.parse(readFileSync(join(profDir, file), 'utf8')), nodeGroup, windowUs);
    else out.node = 'no .cpuprofile written (the server did not exit cleanly)';
    out.note = 'node: samples inside the window only; renderers: pages that existed at the start, over the window; trace: the window, thread time where recorded';
  } finally {
    for (const d of [dataDir, wrapDir, ...(process.env.BENCH_PROFILE_KEEP ? [] : [profDir])]) rmSync(d, { recursive: true, force: true });
    if (process.env.BENCH_PROFILE_KEEP) console.log(`Node profile kept in ${profDir}`);
  }
  writeFileSync(new URL('./profile.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
  console.log(JSON.stringify(out, null, 1));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
