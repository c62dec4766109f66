// The account endpoints and the billing lifecycle through the real server (fake clock, real
// SQLite file, real Chromium for the invoice PDF), and the `billing` CLI on the same data.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import { BAR, post, startTestServer, type TestServer } from '../helpers/server.js';
import { DAY, FakeClock } from '../helpers/clock.js';
import { apiKey, bytes as bytesOf } from '../helpers/client.js';
import { pdfText } from '../helpers/pdfText.js';

const run = promisify(execFile);
const T0 = Date.UTC(2025, 3, 1, 0, 0, 0);

describe('billing: account endpoints and lifecycle', function () {
  this.timeout(120000);
  let s: TestServer;
  let clock: FakeClock;

  before(async () => {
    clock = new FakeClock(T0);
    s = await startTestServer({ poolSize: 1 }, { clock, schedulerIntervalMs: 0, outbox: { pollMs: 0 } });
  });
  after(async () => s?.stop());

  const newAccount = (plan: 'starter' | 'growth' = 'starter', email: string | null = 'owner@example.com') => s.deps.accounts.createAccount(plan, email);
  const get = (path: string, token: string) => fetch(s.url + path, { headers: { authorization: `Bearer ${token}` } });
  const render = (key: string, width = 120) => post(s.url, '/v1/chart', { chart: BAR, width, height: 60 }, apiKey(key));

  it('GET /billing/info: plan, cycle, limit, usage, period dates and amount due', async () => {
    clock.set(T0);
    const a = await newAccount('growth');
    expect((await render(a.api_key)).status).to.equal(200);
    const res = await get('/billing/info', a.session_token);
    expect(res.status).to.equal(200);
    expect(await res.json()).to.deep.equal({
      plan: 'growth',
      billing_cycle: 'monthly',
      usage_limit: 1_000_000,
      current_usage: 1,
      billing_period_start: '2025-04-01T00:00:00.000Z',
      billing_period_end: '2025-05-01T00:00:00.000Z',
      next_billing_date: '2025-05-01T00:00:00.000Z',
      amount_due: 150,
    });
    const none = await fetch(s.url + '/billing/info');
    expect(none.status).to.equal(401);
    expect(await none.json()).to.include({ error: 'invalid_session' });
  });

  it('a closed period gives an invoice (plan, proration, overage) listed with its PDF, rendered by Chromium', async () => {
    clock.set(T0);
    const a = await newAccount('starter');
    const other = await newAccount('starter');
    clock.set(T0 + 15 * DAY);
    await s.deps.billing.changePlan(a.account_id, 'growth'); // +£60 proration
    await s.deps.store.usage.setUsed(a.account_id, T0, 1_000_000);
    expect((await render(a.api_key)).status).to.equal(200); // 1 over Growth's allowance: 1 x £1
    clock.set(Date.UTC(2025, 4, 1));
    await s.deps.billing.runScheduler();
    // Sessions last 30 days: the owner signs in again.
    const token = (await s.deps.accounts.createSession(a.account_id)).session_token;
    const otherToken = (await s.deps.accounts.createSession(other.account_id)).session_token;

    const list = await get('/billing/invoices', token);
    expect(list.status).to.equal(200);
    const { invoices } = (await list.json()) as { invoices: Array<{ id: string; date: string; amount: number; status: string; download_url: string }> };
    expect(invoices).to.have.length(1);
    const inv = invoices[0]!;
    expect(inv).to.include({ date: '2025-05-01T00:00:00.000Z', amount: 91, status: 'open' });
    expect(inv.download_url).to.equal(`${s.config.publicBaseUrl}/billing/invoices/${inv.id}/pdf`);
    const stored = (await s.deps.store.billing.invoice(inv.id))!;
    expect(stored.lines.map((l) => [l.kind, l.amountPence])).to.deep.equal([['plan', 3000], ['proration', 6000], ['overage', 100]]);

    const pdf = await get(`/billing/invoices/${inv.id}/pdf`, token);
    expect(pdf.status).to.equal(200);
    expect(pdf.headers.get('content-type')).to.equal('application/pdf');
    expect(pdf.headers.get('x-content-type-options')).to.equal('nosniff');
    const bytes = await bytesOf(pdf);
    expect(bytes.subarray(0, 5).toString()).to.equal('%PDF-');
    const doc = await PDFDocument.load(bytes, { updateMetadata: false });
    expect(doc.getPageCount()).to.be.greaterThan(0);
    expect(doc.getProducer() ?? '').to.match(/Skia|Chrom/i);

    // Another account's invoice does not exist for this session.
    const foreign = await get(`/billing/invoices/${inv.id}/pdf`, otherToken);
    expect(foreign.status).to.equal(404);
    expect(await foreign.json()).to.include({ error: 'not_found' });
    expect((await get('/billing/invoices/inv_nope/pdf', token)).status).to.equal(404);

    // After payment the invoice is paid.
    await s.deps.billing.paymentSucceeded(a.account_id);
    const paid = (await (await get('/billing/invoices', token)).json()) as { invoices: Array<{ status: string }> };
    expect(paid.invoices[0]!.status).to.equal('paid');
  });

  it('downgrade: the new API limits apply at once', async () => {
    clock.set(T0);
    const a = await newAccount('growth');
    expect((await render(a.api_key, 3000)).status).to.equal(200);
    await s.deps.billing.changePlan(a.account_id, 'starter');
    const res = await render(a.api_key, 3000);
    expect(res.status).to.equal(400);
    expect(await res.json()).to.include({ error: 'invalid_dimensions' });
    expect(res.headers.get('x-ratelimit-limit')).to.equal('120');
  });

  it('suspended (day 10 of a failed payment) is read-only: charts served, no generation or keys; analytics still available; payment restores', async () => {
    clock.set(T0);
    const a = await newAccount('starter');
    const created = await post(s.url, '/v1/chart/create', { chart: BAR, width: 100, height: 50 }, apiKey(a.api_key));
    expect(created.status).to.equal(201);
    const shortUrl = ((await created.json()) as { url: string }).url;
    await s.deps.billing.paymentFailed(a.account_id);
    clock.set(T0 + 9 * DAY);
    await s.deps.billing.runScheduler();
    expect((await s.deps.store.accounts.find(a.account_id))!.status).to.equal('suspended');

    const refused = await render(a.api_key);
    expect(refused.status).to.equal(403);
    expect(await refused.json()).to.include({ error: 'forbidden' });
    expect((await get('/usage/analytics', a.session_token)).status).to.equal(200);
    expect((await get('/billing/info', a.session_token)).status).to.equal(200);
    expect((await fetch(shortUrl.replace(s.config.publicBaseUrl, s.url))).status).to.equal(200);

    await s.deps.billing.paymentSucceeded(a.account_id);
    expect((await render(a.api_key)).status).to.equal(200);
  });

  it('terminated (day 30) deletes the data: key and session stop working', async () => {
    clock.set(T0);
    const a = await newAccount('starter');
    const created = await post(s.url, '/v1/chart/create', { chart: BAR, width: 120, height: 50 }, apiKey(a.api_key));
    expect(created.status).to.equal(201);
    const path = new URL(((await created.json()) as { url: string }).url).pathname;
    expect((await fetch(s.url + path)).status).to.equal(200); // now in the memory tier too
    await s.deps.billing.paymentFailed(a.account_id);
    clock.set(T0 + 29 * DAY);
    await s.deps.billing.runScheduler();
    expect((await render(a.api_key)).status).to.equal(401);
    // Its short charts are gone from every tier.
    expect((await fetch(s.url + path)).status).to.equal(404);
    s.deps.imageCache.clearMemory();
    expect((await fetch(s.url + path)).status).to.equal(404);
    expect((await get('/billing/info', a.session_token)).status).to.equal(401);
    expect(await s.deps.store.keys.listByAccount(a.account_id)).to.deep.equal([]);
  });

  it('the billing CLI drives the same lifecycle (--now) and prints JSON', async () => {
    clock.set(T0);
    const a = await newAccount('starter');
    const cli = async (...args: string[]) => {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'billing', ...args, '--json'], {
        env: { ...process.env, DATA_DIR: s.config.dataDir, LOG_LEVEL: 'silent' },
      });
      return JSON.parse(stdout) as Record<string, unknown>;
    };
    expect(await cli('payment-failed', '--account', a.account_id, '--now', '2025-04-01T00:00:00Z')).to.include({ status: 'active' });
    expect(await cli('run-scheduler', '--now', '2025-04-10T00:00:00Z')).to.have.property('accounts');
    expect((await s.deps.store.accounts.find(a.account_id))!.status).to.equal('suspended');
    expect(await cli('payment-succeeded', '--account', a.account_id, '--now', '2025-04-11T00:00:00Z')).to.include({ status: 'active' });
    const changed = await cli('change-plan', '--account', a.account_id, '--plan', 'pro', '--now', '2025-04-11T00:00:00Z');
    expect(changed).to.include({ plan: 'growth', effective: 'now' });
    expect(await cli('cancel', '--account', a.account_id, '--now', '2025-04-12T00:00:00Z')).to.include({ cancel_at_period_end: true });
    const inv = await cli('close-period', '--account', a.account_id, '--now', '2025-04-14T00:00:00Z');
    expect(inv).to.have.property('total_pence').that.is.a('number');
    expect((await s.deps.store.accounts.find(a.account_id))!.status).to.equal('cancelled');
    const bad = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'billing', 'change-plan', '--account', a.account_id, '--plan', 'gold'], {
      env: { ...process.env, DATA_DIR: s.config.dataDir },
    }).catch((e: { code: number; stderr: string }) => e);
    expect(bad).to.have.property('code', 2);
    expect((bad as { stderr: string }).stderr).to.match(/--plan must be one of/);
  });

  it('an enterprise volume discount is its own negative line in the invoice JSON and in the printed PDF', async () => {
    clock.set(T0);
    const a = await s.deps.accounts.createAccount('enterprise', 'big@example.com');
    await s.deps.billing.setCustomLimits(a.account_id, { pricePence: 1_000_000 });
    await s.deps.store.usage.setUsed(a.account_id, T0, 5_000_000);
    clock.set(Date.UTC(2025, 4, 1));
    await s.deps.billing.runScheduler();
    const token = (await s.deps.accounts.createSession(a.account_id)).session_token;
    const { invoices } = (await (await get('/billing/invoices', token)).json()) as { invoices: Array<{ id: string; amount: number }> };
    expect(invoices[0]!.amount).to.equal(7000);
    const stored = (await s.deps.store.billing.invoice(invoices[0]!.id))!;
    expect(stored.lines.map((l) => [l.kind, l.amountPence])).to.deep.equal([['plan', 1_000_000], ['discount', -300_000]]);
    const pdf = await get(`/billing/invoices/${invoices[0]!.id}/pdf`, token);
    expect(pdf.status).to.equal(200);
    const text = (await pdfText(await bytesOf(pdf))).replace(/\s+/g, ' ');
    expect(text).to.contain('Volume discount');
    expect(text).to.contain('5M-10M tier');
    expect(text).to.contain('-£3000.00');
    expect(text).to.contain('£7000.00');
  });

  it("GET /usage/analytics?days=N asks for at most the plan's analytics retention: 400 invalid_input naming the limit beyond", async () => {
    clock.set(T0);
    const starter = await newAccount('starter');
    const growth = await newAccount('growth');
    expect((await get('/usage/analytics?days=365', starter.session_token)).status).to.equal(200);
    const over = await get('/usage/analytics?days=366', starter.session_token);
    expect(over.status).to.equal(400);
    expect(await over.json()).to.deep.equal({ error: 'invalid_input', detail: 'days must be at most 365 on the starter plan' });
    expect((await get('/usage/analytics?days=1095', growth.session_token)).status).to.equal(200);
    const growthOver = await get('/usage/analytics?days=1096', growth.session_token);
    expect(await growthOver.json()).to.deep.equal({ error: 'invalid_input', detail: 'days must be at most 1095 on the growth plan' });
    expect((await get('/usage/analytics', starter.session_token)).status).to.equal(200);
  });

  it('billing set-limits --retention-days and --discount-percent set an enterprise account\'s window and rate above 10M; bad values are refused', async () => {
    clock.set(T0);
    const a = await s.deps.accounts.createAccount('enterprise', null);
    const cli = (...args: string[]) =>
      run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'billing', 'set-limits', '--account', a.account_id, ...args], {
        env: { ...process.env, DATA_DIR: s.config.dataDir, LOG_LEVEL: 'silent' },
      });
    const { stdout } = await cli('--retention-days', '90', '--discount-percent', '40', '--json');
    expect(JSON.parse(stdout)).to.include({ retention_days: 90, discount_percent: 40 });
    expect(await s.deps.store.retention.customRetention()).to.deep.include({ accountId: a.account_id, days: 90 });
    const none = JSON.parse((await cli('--retention-days', 'none', '--json')).stdout) as Record<string, unknown>;
    expect(none).to.include({ retention_days: null, discount_percent: 40 });
    const bad = await cli('--discount-percent', '101').catch((e: { code: number; stderr: string }) => e);
    expect(bad).to.have.property('code', 1);
    expect((bad as { stderr: string }).stderr).to.match(/--discount-percent must be a whole number from 0 to 100/);
    const junk = await cli('--retention-days', '3d').catch((e: { code: number; stderr: string }) => e);
    expect(junk).to.have.property('code', 2);
    expect((junk as { stderr: string }).stderr).to.match(/--retention-days must be a whole number or none/);
  });
});

