// Time zones and locales per render: renders/s at 4 in flight (POOL_SIZE = the cores) when
// every request names the same zone and locale, against traffic alternating between three zones
// and locales (Europe/Berlin de-DE, America/New_York en-US, Asia/Kolkata hi-IN), so that nearly
// every render moves its page to another zone (Emulation.setTimezoneOverride, setLocaleOverride
// and the accept-language: src/render/page.ts). Side by side in one run, in alternating rounds,
// on the real server over HTTP. One zone is the most pages grouped by zone could reach (no
// switch at all); the gap between the rows is all that grouping could save.
//   npm run bench:zones
//   ZONES_ROUNDS (6), ZONES_PER_ROUND (600 renders), ZONES_WARM (300 renders each way), BENCH_PORT (8097)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, loadavg, cpus } from 'node:os';
import { join } from 'node:path';
import { loadSamples, summarize, treeCpuMs } from './lib.js';
import { benchAccount, startServer, stopServer } from './server.js';

const ROUNDS = Number(process.env.ZONES_ROUNDS ?? 6);
const PER_ROUND = Number(process.env.ZONES_PER_ROUND ?? 600);
const WARM = Number(process.env.ZONES_WARM ?? 300);
const PORT = Number(process.env.BENCH_PORT ?? 8097);
const IN_FLIGHT = 4;
const HOUR = 3600_000;
const AT = Date.UTC(2024, 2, 31, 1);

const ONE = [{ timezone: 'Europe/Berlin', locale: 'de-DE' }];
const THREE = [
  { timezone: 'Europe/Berlin', locale: 'de-DE' },
  { timezone: 'America/New_York', locale: 'en-US' },
  { timezone: 'Asia/Kolkata', locale: 'hi-IN' },
];

/** A small time-axis line, each request its own (no two coalesce): a switch weighs most beside a cheap render. */
function body(i: number, zones: ReadonlyArray<{ timezone: string; locale: string }>): string {
  const data = Array.from({ length: 24 }, (_, h) => ({ x: AT - 12 * HOUR + h * HOUR, y: 1000 + ((h * 7 + i) % 13) * 1234.5 }));
  const chart = { type: 'line', data: { datasets: [{ label: `r${i}`, data, borderColor: '#0a7', pointRadius: 0 }] }, options: { scales: { x: { type: 'time', time: { unit: 'hour' } } } } };
  return JSON.stringify({ chart, width: 400, height: 200, ...zones[i % zones.length] });
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'chartshot-bench-zones-'));
  const { api_key } = benchAccount(dataDir);
  const server = await startServer(dataDir, PORT);
  const base = `http://127.0.0.1:${PORT}`;
  const headers = { 'content-type': 'application/json', 'x-api-key': api_key };
  const rows = { one: { lat: [] as number[], secs: 0, cpu: 0, n: 0, errors: 0 }, three: { lat: [] as number[], secs: 0, cpu: 0, n: 0, errors: 0 } };
  const perRound: Record<'one' | 'three', number[]> = { one: [], three: [] };
  let offset = 0;
  try {
    // warm both kinds up (JIT, every zone's data in ICU)
    for (const zones of [ONE, THREE]) await loadSamples(base, IN_FLIGHT, WARM, (i) => ({ method: 'POST', path: '/v1/chart', body: body(offset + i, zones), headers }));
    offset += 1000;
    for (let r = 0; r < ROUNDS; r++) {
      // alternate which goes first
      const order: Array<'one' | 'three'> = r % 2 === 0 ? ['one', 'three'] : ['three', 'one'];
      for (const kind of order) {
        const zones = kind === 'one' ? ONE : THREE;
        const cpu0 = treeCpuMs(server.pid!);
        const s = await loadSamples(base, IN_FLIGHT, PER_ROUND, (i) => ({ method: 'POST', path: '/v1/chart', body: body(offset + i, zones), headers }));
        const row = rows[kind];
        row.cpu += treeCpuMs(server.pid!) - cpu0;
        row.lat.push(...s.latencies);
        row.secs += s.result.seconds;
        row.n += s.result.requests;
        row.errors += s.result.errors;
        perRound[kind].push(s.result.perSecond);
        offset += PER_ROUND;
      }
    }
  } finally {
    await stopServer(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const line = (name: string, kind: 'one' | 'three') => {
    const row = rows[kind];
    const sum = summarize(IN_FLIGHT, row.lat, row.secs, row.errors, {});
    return `| ${name} | ${sum.perSecond} | ${median(perRound[kind])} | ${sum.p50Ms} | ${sum.p99Ms} | ${(row.cpu / row.n).toFixed(2)} | ${row.errors} |`;
  };
  const ratio = median(perRound.three) / median(perRound.one);
  process.stdout.write(
    [
      `zones bench: ${ROUNDS} rounds x ${PER_ROUND} renders each way at ${IN_FLIGHT} in flight, 400x200 time-axis line, POOL_SIZE=${cpus().length}; load average before ${loadavg()[0]!.toFixed(2)}`,
      '',
      '| traffic | renders/s | median round renders/s | p50 ms | p99 ms | CPU ms/render (server tree) | errors |',
      '|---|---|---|---|---|---|---|',
      line('one zone and locale (Europe/Berlin, de-DE)', 'one'),
      line('three alternating (Berlin de-DE, New York en-US, Kolkata hi-IN)', 'three'),
      '',
      `three / one (median rounds): ${ratio.toFixed(3)}`,
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
