// Worst-case cost of one anonymous request: every capped option of GET /v1/open/chart at (or past)
// its cap, rendered once each on a one-page server. node --import tsx bench/open-worst.ts [filter]
import { startTestServer } from '../test/helpers/server.js';
import { WORST_CASES } from '../test/helpers/openWorstCases.js';

const filter = process.argv[2] ?? '';
const s = await startTestServer({ poolSize: 1, openRendersPerHour: 1_000_000, renderTimeoutMs: 15000 });
try {
  // warm the page once so the first case does not pay for the start
  await fetch(`${s.url}/v1/open/chart?type=bar&data=1,2`);
  const rows: Array<{ name: string; status: number; ms: number; detail: string }> = [];
  for (const [name, config, extra] of WORST_CASES) {
    if (filter && !name.includes(filter)) continue;
    // escape only what a query needs (as curl users send it): the 8192-byte URL cap binds later
    const enc = (v: string) => v.replace(/[%&#+ \u0080-\uffff]/g, encodeURIComponent);
    const q = Object.entries({ c: JSON.stringify(config), ...(extra ?? {}) }).map(([k, v]) => `${k}=${enc(v)}`).join('&');
    const t0 = performance.now();
    const res = await fetch(`${s.url}/v1/open/chart?${q}`);
    const body = Buffer.from(await res.arrayBuffer());
    const ms = Math.round(performance.now() - t0);
    const detail = res.status === 200 ? `${body.length} bytes` : body.toString('utf8').slice(0, 110);
    rows.push({ name, status: res.status, ms, detail });
    console.log(`${String(res.status).padEnd(4)} ${String(ms).padStart(6)} ms  ${name}  ${detail}`);
  }
  const ok = rows.filter((r) => r.status === 200).sort((a, b) => b.ms - a.ms);
  const worst = ok[0];
  console.log(`\n${rows.length} cases; ${ok.length} rendered; slowest 200: ${worst ? `${worst.name} ${worst.ms} ms` : '-'}; statuses: ${JSON.stringify(rows.reduce<Record<number, number>>((a, r) => ((a[r.status] = (a[r.status] ?? 0) + 1), a), {}))}`);
} finally {
  await s.stop();
}
