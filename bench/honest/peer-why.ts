// Why the old bench's peer was slow: every peer setup on both corpora, side by side, in
// alternating rounds. CPU ms per render (the peer process's /proc time, all its threads) moves
// far less with the machine's load than renders/s. Also checks that the plain peer's plugin
// trimming changes no pixel. Run: node --import tsx bench/honest/peer-why.ts (about 2 minutes
// quiet); BENCH_QUICK=1 for one round. Prints a markdown table and writes bench/honest/peer-why.json.
import { writeFileSync } from 'node:fs';
import { Peer, type PeerOptions } from '../peer.js';
import { treeCpuMs } from '../lib.js';
import { corpus as oldCorpus } from '../corpus/corpus.js';
import { generateCorpus } from './corpus.js';

const QUICK = process.env.BENCH_QUICK === '1';
const ROUNDS = QUICK ? 1 : 3;
const r2 = (x: number) => Math.round(x * 100) / 100;

const setups: Array<[string, PeerOptions]> = [
  ['old bench peer (worker.mjs: chartjs-node-canvas, renderer per size)', { worker: 'worker.mjs' }],
  ['chartjs-node-canvas, renderer per size (best.mjs cnc)', { worker: 'best.mjs', env: { PEER_MODE: 'cnc' } }],
  ['node-canvas + one Chart.js, all plugins on (best.mjs plain, PEER_TRIM=0)', { worker: 'best.mjs', env: { PEER_MODE: 'plain', PEER_TRIM: '0' } }],
  ['node-canvas + one Chart.js, unused plugins off (best.mjs plain)', { worker: 'best.mjs', env: { PEER_MODE: 'plain' } }],
  ['the same with a new canvas per render (best.mjs plain, PEER_NEW_CANVAS=1)', { worker: 'best.mjs', env: { PEER_MODE: 'plain', PEER_NEW_CANVAS: '1' } }],
];

async function main() {
  const corpora: Array<[string, string[]]> = [
    ['old corpus (bench/corpus, 40)', oldCorpus.map((e) => JSON.stringify(e.body))],
    ['generated corpus (bench/honest, 48)', generateCorpus().map((e) => JSON.stringify(e.body))],
  ];
  const peers: Peer[] = [];
  for (const [, o] of setups) peers.push(await Peer.start(o));
  const acc = new Map<string, { renders: number; seconds: number; cpuMs: number }>();
  const perConfigOld: number[][] = oldCorpus.map(() => []);
  try {
    // warm every setup on both corpora (JIT, fonts, renderers and canvases per size)
    for (const p of peers) for (const [, bodies] of corpora) await p.run(bodies, 4, bodies.length * (QUICK ? 1 : 2));
    console.log('warm');
    for (let k = 0; k < ROUNDS; k++) {
      for (const [cname, bodies] of corpora) {
        const order = k % 2 === 0 ? peers.map((_, i) => i) : peers.map((_, i) => peers.length - 1 - i);
        for (const i of order) {
          const p = peers[i]!;
          const cpu0 = treeCpuMs(p.pid);
          const r = await p.run(bodies, 4, bodies.length * (QUICK ? 1 : 3));
          const cpu = treeCpuMs(p.pid) - cpu0;
          const key = `${i}|${cname}`;
          const a = acc.get(key) ?? { renders: 0, seconds: 0, cpuMs: 0 };
          a.renders += r.requests;
          a.seconds += r.seconds;
          a.cpuMs += cpu;
          acc.set(key, a);
          console.log(`round ${k} ${setups[i]![0]} on ${cname}: ${r.perSecond}/s, ${r2(cpu / r.requests)} ms CPU/render`);
          if (r.errors) console.log(`${setups[i]![0]} on ${cname}: ${r.errors} errors (${r.firstError})`);
        }
      }
    }
    // per config on the old corpus, 1 in flight, best plain: which configs cost the most
    const best = peers[3]!;
    for (let k = 0; k < (QUICK ? 1 : 5); k++) {
      const r = await best.run(corpora[0]![1], 1, oldCorpus.length);
      r.byBody!.forEach((l, i) => perConfigOld[i]!.push(...l));
    }
    // trimming changes no pixel: the same PNG bytes with and without it, on both corpora
    const differ: string[] = [];
    for (const [cname, bodies] of corpora) {
      for (let i = 0; i < bodies.length; i++) {
        const [a, b] = await Promise.all([peers[2]!.png(bodies[i]!), peers[3]!.png(bodies[i]!)]);
        if (!a.equals(b)) differ.push(`${cname} #${i}`);
      }
    }
    const rows: string[] = ['| peer setup | corpus | renders/s at 4 in flight | CPU ms per render |', '|---|---|---|---|'];
    const out: Record<string, unknown> = { rounds: ROUNDS, trimIdenticalPng: differ.length === 0, trimDiffers: differ, setups: [] };
    for (let i = 0; i < setups.length; i++) {
      for (const [cname] of corpora) {
        const a = acc.get(`${i}|${cname}`)!;
        rows.push(`| ${setups[i]![0]} | ${cname} | ${r2(a.renders / a.seconds)} | ${r2(a.cpuMs / a.renders)} |`);
        (out.setups as unknown[]).push({ setup: setups[i]![0], corpus: cname, perSecond: r2(a.renders / a.seconds), cpuMsPerRender: r2(a.cpuMs / a.renders) });
      }
    }
    const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    const heavy = oldCorpus.map((e, i) => ({ name: e.name, size: `${e.body.width}x${e.body.height}`, p50Ms: r2(med(perConfigOld[i]!)) })).sort((x, y) => y.p50Ms - x.p50Ms);
    const total = heavy.reduce((s, h) => s + h.p50Ms, 0);
    out.oldCorpusPerConfig = heavy;
    console.log(rows.join('\n'));
    console.log(`\nplain peer, trimmed vs all plugins: ${differ.length === 0 ? 'identical PNG bytes on every config' : `differs on ${differ.join(', ')}`}`);
    console.log(`\nold corpus, best peer at 1 in flight: medians sum to ${r2(total)} ms; the 6 heaviest: ${heavy.slice(0, 6).map((h) => `${h.name} ${h.size} ${h.p50Ms} ms`).join('; ')} (${r2((100 * heavy.slice(0, 6).reduce((s, h) => s + h.p50Ms, 0)) / total)}% of the sum)`);
    writeFileSync(new URL('./peer-why.json', import.meta.url), JSON.stringify(out, null, 2) + '\n');
  } finally {
    for (const p of peers) await p.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
