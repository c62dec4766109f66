// The dashboard's pure parts: the usage series and its chart request, the escaping templates,
// the account state, and when the usage chart is redrawn (with a counting fake renderer).
import { expect } from 'chai';
import { usageSeries, usageChartRequest } from '../../src/chart/usageChart.js';
import { esc, html, trusted } from '../../src/http/dashboard/html.js';
import { stateOf } from '../../src/services/dashboard/index.js';
import { UsageChart, REDRAW_MS } from '../../src/services/dashboard/usageChart.js';
import type { RenderService } from '../../src/services/render.js';
import type { Account } from '../../src/store/types.js';
import type { BillingRecord } from '../../src/store/metering.js';
import { FakeClock, DAY } from '../helpers/clock.js';
import { DashboardSessions } from '../../src/services/dashboard/sessions.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { invalidSession } from '../../src/errors.js';

const row = (day: number, requests: number, succeeded: number, renders: number, cacheHits: number) => ({ day, requests, succeeded, renders, cacheHits });

describe('dashboard usage series', () => {
  it('has one entry per day of the window, zero where no row exists', () => {
    const s = usageSeries([row(102, 10, 8, 5, 3)], 100, 103);
    expect(s.bucketDays).to.equal(1);
    expect(s.days).to.deep.equal(['1970-04-11', '1970-04-12', '1970-04-13', '1970-04-14']);
    expect(s.generations).to.deep.equal([0, 0, 8, 0]);
    expect(s.errors).to.deep.equal([0, 0, 2, 0]);
  });

  it('sums weeks over windows longer than a year, the newest week whole, and loses no day', () => {
    const rows = Array.from({ length: 1095 }, (_, i) => row(1000 + i, 2, 1, 1, 1));
    const s = usageSeries(rows, 1000, 2094);
    expect(s.bucketDays).to.equal(7);
    expect(s.days).to.have.length(Math.ceil(1095 / 7));
    expect(s.generations.reduce((a, b) => a + b, 0)).to.equal(2 * 1095);
    expect(s.errors.reduce((a, b) => a + b, 0)).to.equal(1095);
    expect(s.generations.at(-1)).to.equal(14);
    expect(s.days[0]).to.equal(new Date(1000 * DAY).toISOString().slice(0, 10));
  });

  it('is drawn as SVG without caller functions or a watermark', () => {
    const r = usageChartRequest(usageSeries([], 0, 29));
    expect(r).to.include({ format: 'svg', allowFunctions: false, watermark: null });
    expect(JSON.stringify(r.config)).to.not.include('function');
  });
});

describe('dashboard html templates', () => {
  it('escape every interpolated value, lists included, and keep nested templates', () => {
    const evil = `"'><script>&\``;
    expect(esc(evil)).to.equal('&quot;&#39;&gt;&lt;script&gt;&amp;&#96;');
    const out = html`<p title="${evil}">${[evil, html`<b>${evil}</b>`]}${null}${false}${0}</p>`.text;
    expect(out).to.equal('<p title="&quot;&#39;&gt;&lt;script&gt;&amp;&#96;">&quot;&#39;&gt;&lt;script&gt;&amp;&#96;<b>&quot;&#39;&gt;&lt;script&gt;&amp;&#96;</b>0</p>');
    expect(html`${trusted('<i>x</i>')}`.text).to.equal('<i>x</i>');
  });
});

describe('dashboard account state', () => {
  const acct = (over: Partial<Account>): Account => ({ id: 'a', email: null, plan: 'starter', status: 'active', createdAt: 0, ...over });
  const rec = (over: Partial<BillingRecord>) => ({ periodEnd: 30 * DAY, paymentFailedAt: null, dunningStage: 0, cancelAtPeriodEnd: false, readOnlyUntil: null, ...over }) as BillingRecord;

  it('tells active, cancelling, past due with its step, suspended, cancelled and trial apart', () => {
    expect(stateOf(acct({}), rec({}))).to.deep.equal({ kind: 'active', cancelAt: null });
    expect(stateOf(acct({}), rec({ cancelAtPeriodEnd: true }))).to.deep.equal({ kind: 'active', cancelAt: 30 * DAY });
    expect(stateOf(acct({}), rec({ paymentFailedAt: DAY, dunningStage: 2 }))).to.deep.equal({ kind: 'past_due', since: DAY, step: 2, suspendsAt: 10 * DAY });
    expect(stateOf(acct({ status: 'suspended' }), rec({ paymentFailedAt: DAY, dunningStage: 4 }))).to.deep.equal({ kind: 'suspended', since: DAY, terminatesAt: 30 * DAY });
    expect(stateOf(acct({ status: 'cancelled' }), rec({ readOnlyUntil: 60 * DAY }))).to.deep.equal({ kind: 'cancelled', readOnlyUntil: 60 * DAY });
    expect(stateOf(acct({ plan: 'trial' }), null).kind).to.equal('trial');
  });
});

describe('dashboard usage chart redraws', () => {
  function fakeRenderer() {
    const calls: string[] = [];
    let fail = false;
    const r: Pick<RenderService, 'render'> = {
      async render(_req, _owner, digest) {
        calls.push(digest!);
        if (fail) throw new Error('pool gone');
        return { body: Buffer.from(`<svg>${calls.length}</svg>`), contentType: 'image/svg+xml', format: 'svg', renderMs: 1, coalesced: false, digest: digest!, pageClean: true };
      },
    };
    return { r, calls, setFail: (v: boolean) => (fail = v) };
  }

  it('waits for the first chart, reuses it while the data is unchanged, redraws changed data in the background for REDRAW_MS', async () => {
    const clock = new FakeClock();
    const f = fakeRenderer();
    const chart = new UsageChart(f.r, clock);
    const one = await chart.draw('a', [row(10, 1, 1, 1, 0)], 0, 29);
    expect(one.svg.toString()).to.equal('<svg>1</svg>');
    expect((await chart.draw('a', [row(10, 1, 1, 1, 0)], 0, 29)).svg.toString()).to.equal('<svg>1</svg>');
    expect(f.calls).to.have.length(1);
    // changed data: the last chart at once, the new one drawn meanwhile
    const stale = await chart.draw('a', [row(10, 2, 2, 2, 0)], 0, 29);
    expect(stale.svg.toString()).to.equal('<svg>1</svg>');
    expect(stale.totals.generations).to.equal(2);
    await new Promise((r) => setImmediate(r));
    expect((await chart.draw('a', [row(10, 2, 2, 2, 0)], 0, 29)).svg.toString()).to.equal('<svg>2</svg>');
    // past REDRAW_MS a change is waited for, and a failure is seen
    clock.advance(REDRAW_MS + 1);
    f.setFail(true);
    let err = '';
    await chart.draw('a', [row(10, 3, 3, 3, 0)], 0, 29).catch((e: Error) => (err = e.message));
    expect(err).to.equal('pool gone');
    // another account never sees this one's chart
    f.setFail(false);
    expect((await chart.draw('b', [row(10, 2, 2, 2, 0)], 0, 29)).svg.toString()).to.match(/<svg>\d<\/svg>/);
    expect(f.calls.length).to.equal(4);
  });
});

describe('dashboard sign-in throttle', () => {
  it('parallel wrong tokens from one address are checked one by one: only the limit is ever checked', async () => {
    const store = createSqliteStore(':memory:');
    try {
      let checked = 0;
      // a session check that takes a while, as a remote database's does
      const accounts = {
        async authenticateSession(): Promise<never> {
          checked++;
          await new Promise((r) => setTimeout(r, 5));
          throw invalidSession();
        },
      };
      const sessions = new DashboardSessions(store, accounts, new FakeClock(), Buffer.alloc(32, 7));
      const results = await Promise.allSettled(Array.from({ length: 25 }, (_, i) => sessions.signInWithToken(`guess-${i}`, '203.0.113.9')));
      const codes = results.map((r) => (r.status === 'rejected' ? (r.reason as { status: number }).status : 200));
      expect(codes.filter((c) => c === 401)).to.have.length(10);
      expect(codes.filter((c) => c === 429)).to.have.length(15);
      expect(checked).to.equal(10);
    } finally {
      await store.close();
    }
  });
});
