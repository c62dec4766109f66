// What V8 does in a renderer page between renders (bench/perf-gc-2026-11-27.md): young and full
// collections, their pauses, and how many functions the page compiles again, per render, on a
// pool of one page in this process. Chromium runs through a wrapper adding V8's --trace-gc and
// --trace-opt (their lines go to the renderer's stdout, kept in a file). The page is warmed
// first; PAGE_MAX_RENDERS is raised so no recycled page counts its first compiles.
// Run: node --import tsx bench/gc-churn.ts [bar|corpus] [warm renders] [measured renders]
// (after npm run build). Extra V8 flags for the experiment: GC_CHURN_JS_FLAGS. GC_CHURN_IDLE_MS:
// the page idles that long between the warm-up and the measured renders (what V8 does to an idle
// page, and what it costs the renders after; `idle` in the output).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';
import { startPool } from '../src/main.js';
import { barBody } from './compare.js';
import { generateCorpus, DEFAULT_SEED } from './honest/corpus.js';
import { keyedRenderService, renderRequest } from './honest/layers.js';
import { cpuSnapshot, perRender, splitDelta } from './honest/procs.js';
import { jsFlagsWrapper } from './jsflags.js';

const [mode = 'bar', warmArg = '1000', measuredArg = '1500'] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'gc-churn-'));
const log = join(dir, 'v8.log');
const config0 = loadConfig({ ...process.env, DATA_DIR: dir });
const wrapper = jsFlagsWrapper(dir, config0.chromiumPath, `--trace-gc --trace-opt ${process.env.GC_CHURN_JS_FLAGS ?? ''}`, log);
const config = loadConfig({ ...process.env, DATA_DIR: dir, POOL_SIZE: '1', LOG_LEVEL: 'silent', CHROMIUM_PATH: wrapper, PAGE_MAX_RENDERS: '1000000' });
const pool = await startPool(config, createLogger('silent'));
const service = keyedRenderService(pool, config);
const bodies = mode === 'bar' ? [barBody('bar', 100, 100)] : generateCorpus(DEFAULT_SEED).map((e) => e.body);
const reqs = bodies.map(renderRequest);

interface Counts { scavenges: number; scavengeMs: number; fulls: number; fullMs: number; compiles: number; compileMs: number; reasons: Record<string, number> }
function counts(): Counts {
  const c: Counts = { scavenges: 0, scavengeMs: 0, fulls: 0, fullMs: 0, compiles: 0, compileMs: 0, reasons: {} };
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return c;
  }
  for (const line of text.split('\n')) {
    if (line.startsWith('[completed compiling')) {
      c.compiles++;
      // "took a, b, c ms": on the main thread before, on a worker, on the main thread after
      const took = /took ([\d.]+), ([\d.]+), ([\d.]+) ms/.exec(line);
      if (took) c.compileMs += Number(took[1]) + Number(took[2]) + Number(took[3]);
    }
    const gc = /: (Scavenge|(?:Incremental )?Mark-Compact|Mark-Compact)\b.*?, ([\d.]+) \/ [\d.]+ ms/.exec(line);
    if (!gc) continue;
    if (gc[1] === 'Scavenge') {
      c.scavenges++;
      c.scavengeMs += Number(gc[2]);
    } else {
      c.fulls++;
      c.fullMs += Number(gc[2]);
      // why V8 started it: the text after the last ';' of the line
      const why = line.slice(line.lastIndexOf(';') + 1).trim() || 'unknown';
      c.reasons[why] = (c.reasons[why] ?? 0) + 1;
    }
  }
  return c;
}

try {
  const warm = Number(warmArg);
  const measured = Number(measuredArg);
  for (let i = 0; i < warm; i++) await service.render(reqs[i % reqs.length]!, 'bench');
  const idleMs = Number(process.env.GC_CHURN_IDLE_MS ?? 0);
  const cIdle = counts();
  if (idleMs > 0) await new Promise((r) => setTimeout(r, idleMs));
  const c0 = counts();
  const roots = { server: process.pid, loadGenerator: process.pid };
  const b = cpuSnapshot(roots);
  const t = performance.now();
  for (let i = 0; i < measured; i++) await service.render(reqs[i % reqs.length]!, 'bench');
  const wall = (performance.now() - t) / measured;
  const cpu = perRender(splitDelta(b, cpuSnapshot(roots)), measured);
  const c1 = counts();
  const per = (k: Exclude<keyof Counts, 'reasons'>) => Math.round(((c1[k] - c0[k]) / measured) * 1000) / 1000;
  console.log(JSON.stringify({
    mode, warm, measured, extraFlags: process.env.GC_CHURN_JS_FLAGS ?? '',
    idle: { ms: idleMs, fullGcs: c0.fulls - cIdle.fulls, scavenges: c0.scavenges - cIdle.scavenges, compiles: c0.compiles - cIdle.compiles, fullGcReasons: Object.fromEntries(Object.entries(c0.reasons).map(([k, v]) => [k, v - (cIdle.reasons[k] ?? 0)]).filter(([, v]) => (v as number) > 0)) },
    wallMsPerRender: Math.round(wall * 100) / 100,
    perRender: { scavenges: per('scavenges'), scavengePauseMs: per('scavengeMs'), fullGcs: per('fulls'), fullPauseMs: per('fullMs'), compiles: per('compiles'), compileMs: per('compileMs') },
    fullGcReasons: Object.fromEntries(Object.entries(c1.reasons).map(([k, v]) => [k, v - (c0.reasons[k] ?? 0)]).filter(([, v]) => (v as number) > 0)),
    meanScavengeMs: c1.scavenges > c0.scavenges ? Math.round(((c1.scavengeMs - c0.scavengeMs) / (c1.scavenges - c0.scavenges)) * 100) / 100 : null,
    cpuMsPerRender: { browser: cpu['browser process'], renderers: cpu.renderers },
  }));
} finally {
  await pool.close();
  if (process.env.GC_CHURN_KEEP_LOG) writeFileSync(process.env.GC_CHURN_KEEP_LOG, readFileSync(log));
  rmSync(dir, { recursive: true, force: true });
}
