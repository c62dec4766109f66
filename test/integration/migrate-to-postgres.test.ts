// `chartshot migrate-to-postgres`: a SQLite DATA_DIR filled through the real server and CLI is
// copied into a throwaway PostgreSQL database, table by table, checked with plain SQL.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { useCli, type CliResult } from '../helpers/cli.js';
import { startTestServer, BAR } from '../helpers/server.js';
import { apiKey, post } from '../helpers/client.js';
import { testDatabase, type TestDatabase } from '../helpers/services.js';

type Row = Record<string, unknown>;

/** bigint and numeric as numbers, as the store reads them. */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 || oid === 1700 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

async function pgQuery<T = Row>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: url, types });
  await c.connect();
  try {
    return (await c.query(text, params)).rows as T[];
  } finally {
    await c.end();
  }
}

/** A row as comparable text: blobs as hex, PostgreSQL booleans as SQLite's 0/1. */
function canon(row: Row, cols: string[]): string {
  return JSON.stringify(cols.map((c) => {
    const v = row[c];
    if (Buffer.isBuffer(v)) return `hex:${v.toString('hex')}`;
    if (typeof v === 'boolean') return v ? 1 : 0;
    return v;
  }));
}

describe('chartshot migrate-to-postgres', function () {
  this.timeout(180000);
  const cli = useCli('chartshot-migrate-');
  let target: TestDatabase;
  let env: Record<string, string>;
  let sqlite: Database.Database;
  const json = (r: CliResult) => {
    expect(r.code, r.err).to.equal(0);
    return JSON.parse(r.out) as Record<string, string>;
  };

  before(async () => {
    target = await testDatabase();
    // accounts, keys, sessions, custom limits and a webhook, through the CLI
    const ent = json(cli.run('accounts', 'create', '--plan', 'enterprise', '--email', 'ent@example.com', '--json'));
    const starter = json(cli.run('accounts', 'create', '--plan', 'starter', '--email', 'st@example.com', '--json'));
    json(cli.run('keys', 'create', '--account', starter.account_id!, '--test', '--json'));
    json(cli.run('sessions', 'create', '--account', starter.account_id!, '--json'));
    expect(cli.run('billing', 'set-limits', '--account', ent.account_id!, '--charts', '4').code).to.equal(0);
    expect(cli.runWith({ WEBHOOK_ALLOW_PRIVATE: 'true' }, 'billing', 'set-webhook', '--account', ent.account_id!, '--url', 'http://127.0.0.1:9/hook').code).to.equal(0);

    // renders, short charts with images, open images, a trial sign-up, through the real server
    const s = await startTestServer({ dataDir: cli.dataDir, trustProxy: true });
    try {
      for (let i = 0; i < 4; i++) {
        const r = await post(s.url, '/v1/chart', { chart: BAR, width: 100 + i, height: 80 }, apiKey(ent.api_key!));
        expect(r.status).to.equal(200);
      }
      for (const [w, format] of [[120, 'png'], [130, 'svg']] as const) {
        const r = await post(s.url, '/v1/chart/create', { chart: BAR, width: w, height: 90, format }, apiKey(starter.api_key!));
        expect(r.status, await r.clone().text()).to.equal(201);
        const { url } = (await r.json()) as { url: string };
        expect((await fetch(url.replace(/^https?:\/\/[^/]+/, s.url))).status).to.equal(200);
      }
      const open = await fetch(`${s.url}/v1/open/chart?type=bar&data=1,2,3&labels=a,b,c`, { headers: { 'x-forwarded-for': '198.51.100.4' } });
      expect(open.status).to.equal(200);
      expect((await post(s.url, '/signup/anon', {}, { 'x-forwarded-for': '198.51.100.5' })).status).to.equal(200);
    } finally {
      await s.stop({ keepData: true });
    }

    // billing records, invoices, events and e-mails in the outbox, through the CLI
    expect(cli.run('billing', 'payment-failed', '--account', starter.account_id!).code).to.equal(0);
    expect(cli.run('billing', 'cancel', '--account', starter.account_id!).code).to.equal(0);
    expect(cli.run('billing', 'close-period', '--account', ent.account_id!).code).to.equal(0);
    expect(cli.run('billing', 'change-plan', '--account', starter.account_id!, '--plan', 'growth').code).to.equal(0);

    // enough rows and bytes to need several batches (rows per INSERT and bytes per INSERT)
    const w = new Database(join(cli.dataDir, 'chartshot.db'));
    w.transaction(() => {
      const win = w.prepare('INSERT INTO open_renders (client, at) VALUES (?, ?)');
      for (let i = 0; i < 1203; i++) win.run(`198.51.100.${i % 250}`, 1_700_000_000_000 + i);
      const img = w.prepare("INSERT INTO images (key, content_type, etag, body, created_at, expires_at, size) VALUES (?, 'image/png', ?, ?, 0, NULL, ?)");
      for (let i = 0; i < 3; i++) {
        const body = randomBytes(5 * 1024 * 1024);
        img.run(`chart:big${i}`, `"big${i}"`, body, body.length);
      }
    })();
    w.close();

    const masterKey = readFileSync(join(cli.dataDir, 'master.key'), 'utf8').trim();
    env = { DATABASE_URL: target.url, MASTER_KEY: masterKey };
    sqlite = new Database(join(cli.dataDir, 'chartshot.db'), { readonly: true });
  });

  after(async () => {
    sqlite?.close();
    await target?.drop();
  });

  const tables = () =>
    (sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);
  const count = (t: string) => (sqlite.prepare(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n;

  it('the SQLite file holds every kind of record (the migration has something to prove)', () => {
    expect(count('open_renders')).to.be.greaterThan(1203);
    for (const t of ['accounts', 'api_keys', 'sessions', 'charts', 'chart_metrics', 'images', 'usage_counters', 'usage_daily', 'usage_thresholds', 'rate_windows', 'trial_signups', 'billing', 'billing_lines', 'invoices', 'billing_events', 'outbox', 'open_renders']) {
      expect(count(t), t).to.be.greaterThan(0);
    }
    expect((sqlite.prepare("SELECT count(*) AS n FROM images WHERE key >= 'open:' AND key < 'open;'").get() as { n: number }).n).to.be.greaterThan(0);
  });

  it('refuses without DATABASE_URL, and with a MASTER_KEY other than master.key (saying how to set it)', async () => {
    const none = cli.run('migrate-to-postgres');
    expect(none.code).to.equal(2);
    expect(none.err).to.contain('DATABASE_URL is required');
    const other = cli.runWith({ ...env, MASTER_KEY: randomBytes(32).toString('hex') }, 'migrate-to-postgres');
    expect(other.code).to.equal(2);
    expect(other.err).to.contain(`MASTER_KEY=$(cat ${join(cli.dataDir, 'master.key')})`);
    expect(other.err.trim().split('\n')).to.have.length(1);
    // nothing copied
    expect(await pgQuery(target.url, "SELECT 1 FROM information_schema.tables WHERE table_name = 'accounts'")).to.have.length(0);
  });

  it('copies every table row for row, with the counts printed per table', async () => {
    const r = cli.runWith(env, 'migrate-to-postgres', '--json');
    expect(r.code, r.err).to.equal(0);
    const out = JSON.parse(r.out) as { tables: Record<string, number>; rows: number; master_key: string };
    expect(out.master_key).to.contain('MASTER_KEY equals');
    for (const t of tables()) {
      const cols = (sqlite.prepare(`PRAGMA table_info("${t}")`).all() as { name: string }[]).map((c) => c.name);
      const want = (sqlite.prepare(`SELECT * FROM "${t}"`).all() as Row[]).map((x) => canon(x, cols)).sort();
      const got = (await pgQuery(target.url, `SELECT ${cols.map((c) => `"${c}"`).join(', ')} FROM "${t}"`)).map((x) => canon(x, cols)).sort();
      expect(got, t).to.deep.equal(want);
      if (t !== 'open_cache_bytes') expect(out.tables[t], t).to.equal(want.length);
    }
    expect(out.rows).to.equal(Object.values(out.tables).reduce((a, b) => a + b, 0));
  });

  it('image bodies are byte-identical bytea, booleans are booleans, the open total is recomputed', async () => {
    const images = sqlite.prepare('SELECT key, body FROM images').all() as { key: string; body: Buffer }[];
    const pgImages = await pgQuery<{ key: string; body: Buffer }>(target.url, 'SELECT key, body FROM images');
    expect(pgImages).to.have.length(images.length);
    for (const img of images) {
      const got = pgImages.find((p) => p.key === img.key);
      expect(Buffer.isBuffer(got?.body), img.key).to.equal(true);
      expect(got!.body.equals(img.body), img.key).to.equal(true);
    }
    const [cancel] = await pgQuery<{ v: unknown }>(target.url, 'SELECT cancel_at_period_end AS v FROM billing WHERE cancel_at_period_end');
    expect(cancel?.v).to.equal(true);
    const openBytes = (sqlite.prepare("SELECT COALESCE(SUM(length(body)), 0) AS n FROM images WHERE key >= 'open:' AND key < 'open;'").get() as { n: number }).n;
    expect(openBytes).to.be.greaterThan(0);
    expect(await pgQuery(target.url, 'SELECT bytes FROM open_cache_bytes')).to.deep.equal([{ bytes: openBytes }]);
  });

  it('identity columns keep their ids and new rows continue after them', async () => {
    for (const t of ['outbox', 'billing_events', 'billing_lines']) {
      const max = (sqlite.prepare(`SELECT max(id) AS m FROM ${t}`).get() as { m: number }).m;
      expect(max, t).to.be.greaterThan(0);
      const [{ id }] = await pgQuery<{ id: number }>(target.url, `SELECT nextval(pg_get_serial_sequence('${t}', 'id'))::bigint AS id`) as [{ id: number }];
      expect(id, t).to.equal(max + 1);
    }
  });

  it('refuses a non-empty target, and --force replaces it without duplicating a row', async () => {
    const before = await pgQuery<{ n: number }>(target.url, 'SELECT count(*)::bigint AS n FROM accounts');
    const again = cli.runWith(env, 'migrate-to-postgres');
    expect(again.code).to.equal(2);
    expect(again.err).to.match(/not empty.*--force/);
    expect(await pgQuery(target.url, 'SELECT count(*)::bigint AS n FROM accounts')).to.deep.equal(before);

    await pgQuery(target.url, "INSERT INTO accounts (id, plan, created_at) VALUES ('acct_stray', 'starter', 0)");
    const forced = cli.runWith(env, 'migrate-to-postgres', '--force');
    expect(forced.code, forced.err).to.equal(0);
    expect(forced.out).to.match(/^accounts\s+3$/m);
    expect(forced.out).to.contain('MASTER_KEY equals');
    for (const t of tables().filter((x) => x !== 'open_cache_bytes')) {
      const [{ n }] = (await pgQuery<{ n: number }>(target.url, `SELECT count(*)::bigint AS n FROM "${t}"`)) as [{ n: number }];
      expect(n, t).to.equal(count(t));
    }
  });
});
