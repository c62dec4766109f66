// Times every dashboard page (loopback round trip, an upper bound of server time) for an account
// with a year of daily usage rows, and weighs the usage page. Run: npx tsx bench/dashboard-pages.ts
import { startTestServer } from '../test/helpers/server.js';
import { PageClient } from '../test/helpers/dashboard.js';
import type { SqliteStore } from '../src/store/sqlite/index.js';

const PAGES = ['/dashboard', '/dashboard/usage', '/dashboard/keys', '/dashboard/billing', '/dashboard/settings'];
const RUNS = 30;

const s = await startTestServer({ poolSize: 1 }, { schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
try {
  for (const plan of ['starter', 'growth'] as const) {
    const a = await s.deps.accounts.createAccount(plan, 'bench@example.com');
    const db = (s.deps.store as SqliteStore).db;
    const today = Math.floor(Date.now() / 86_400_000);
    const ins = db.prepare('INSERT INTO usage_daily (account_id, day, requests, succeeded, renders, render_ms, cache_hits) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const days = plan === 'growth' ? 3 * 365 : 365;
    db.transaction(() => {
      for (let d = 0; d < days; d++) ins.run(a.account_id, today - d, 1000 + (d % 37) * 10, 990 + (d % 37) * 10 - (d % 5), 700 + d % 13, 700 * 90, 300);
    })();
    for (let i = 0; i < 3; i++) {
      await s.deps.billing.closePeriodNow(a.account_id);
      await new Promise((r) => setTimeout(r, 2)); // a period is at least a millisecond long
    }
    const b = new PageClient(s.url, '127.0.0.1');
    await b.signIn(a.session_token);
    const cold = performance.now();
    const first = await b.get('/dashboard/usage');
    const coldMs = performance.now() - cold;
    console.log(`${plan} (${days} daily rows): usage page cold (chart rendered) ${coldMs.toFixed(1)} ms, ${(Buffer.byteLength(first.text) / 1024).toFixed(1)} KiB`);
    for (const p of PAGES) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now();
        const r = await b.get(p);
        times.push(performance.now() - t);
        if (r.status !== 200) throw new Error(`${p}: ${r.status}`);
      }
      times.sort((x, y) => x - y);
      console.log(`  ${p.padEnd(22)} median ${times[RUNS >> 1]!.toFixed(1)} ms, p95 ${times[Math.floor(RUNS * 0.95)]!.toFixed(1)} ms, max ${times[RUNS - 1]!.toFixed(1)} ms`);
    }
  }
} finally {
  await s.stop();
}
