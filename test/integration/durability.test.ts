// Durability.
// (a) The real server process (`node --import tsx src/cli.ts serve`: the current source, whatever
//     the state of dist/) is SIGKILLed while clients create short charts at full speed; after a
//     restart on the same DATA_DIR every chart whose 201 reached a client resolves, the usage
//     counter equals the charts stored, every chart has its image, and the file passes
//     PRAGMA integrity_check.
// (b) A full disk: DATA_DIR on a small tmpfs filled to ENOSPC gives real SQLITE_FULL errors
//     through the real server: 500 internal_error with a log line naming the cause, existing
//     charts still served, nothing half-written, and all well again once space is freed.
// (c) A read-only DATA_DIR: refused at start with a message naming it; a store that turns
//     read-only at run time answers writes with 500 internal_error and says why in the log.
// (d) A full disk while a webhook delivery is being recorded: the real server
//     process keeps running (the outbox's failed write is logged, not an unhandled rejection),
//     restarts and serves reads with the disk still full, and records the delivery once space
//     returns.
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createSqliteStore, type SqliteStore } from '../../src/store/sqlite/index.js';
import { loadMasterKey } from '../../src/store/masterKey.js';
import { AccountService } from '../../src/services/accounts.js';
import { systemClock } from '../../src/clock.js';
import { BillingService } from '../../src/services/billing/index.js';
import { createLogger } from '../../src/log.js';
import { startServer, type Running } from '../../src/main.js';
import { post, testConfig } from '../helpers/server.js';
import { decodePng } from '../helpers/images.js';
import { apiKey, bytes } from '../helpers/client.js';
import { waitFor } from '../helpers/poll.js';

interface Counts {
  charts: number;
  used: number;
  chartsWithoutImage: number;
  integrity: string;
}

/** What the file holds for an account, read with a connection of our own (the server is stopped or still running: WAL readers are fine). */
function countsOf(dataDir: string, accountId: string): Counts {
  const db = new Database(join(dataDir, 'chartshot.db'), { readonly: true, fileMustExist: true });
  try {
    const charts = (db.prepare('SELECT COUNT(*) AS n FROM charts WHERE account_id = ?').get(accountId) as { n: number }).n;
    const used = (db.prepare('SELECT COALESCE(SUM(used), 0) AS n FROM usage_counters WHERE account_id = ?').get(accountId) as { n: number }).n;
    const chartsWithoutImage = (
      db.prepare("SELECT COUNT(*) AS n FROM charts c WHERE c.account_id = ? AND NOT EXISTS (SELECT 1 FROM images i WHERE i.key = 'chart:' || c.id)").get(accountId) as { n: number }
    ).n;
    const integrity = (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('; ');
    return { charts, used, chartsWithoutImage, integrity };
  } finally {
    db.close();
  }
}

const tinyChart = (n: number) => ({
  chart: { type: n % 2 ? 'bar' : 'line', data: { labels: ['a', 'b', 'c'], datasets: [{ data: [n % 97, (n * 7) % 13, Math.random()] }] } },
  width: 40 + (n % 20),
  height: 30,
});

interface Served {
  proc: ChildProcess;
  url: string;
  /** What the server printed (everything with keepLog; otherwise only what came before it listened). */
  log: () => string;
  exited: Promise<number | null>;
}

/**
 * `chartshot serve` from the current source (whatever the state of dist/) on a free port, in its
 * own process group so that cleanup reaches Chromium too; resolves once it logs that it listens.
 * Without keepLog its output is drained unread after that (a long load would fill memory).
 */
function spawnServe(env: Record<string, string>, keepLog: boolean, spawned: (proc: ChildProcess) => void): Promise<Served> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'serve'], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    spawned(proc);
    let out = '';
    let errText = '';
    const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
    const timer = setTimeout(() => reject(new Error(`server did not start: ${errText.slice(-2000)} ${out.slice(-2000)}`)), 60_000);
    proc.stderr!.on('data', (d: Buffer) => (errText += d.toString()));
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"chartshot listening"/.exec(out);
      if (m) {
        clearTimeout(timer);
        if (!keepLog) {
          out = '';
          proc.stdout!.removeAllListeners('data');
          proc.stdout!.resume(); // keep draining the request log
        }
        resolve({ proc, url: m[1]!, log: () => out + errText, exited });
      } else if (!keepLog && out.length > 1_000_000) out = out.slice(-10_000);
    });
    void exited.then((code) => reject(new Error(`server exited with ${code}: ${errText.slice(-2000)} ${out.slice(-2000)}`)));
  });
}

describe('durability: SIGKILL during writes, and a full disk', function () {
  this.timeout(120_000);

  describe('(a) SIGKILL while short charts are created at full speed', function () {
    let root: string;
    let dataDir: string;
    let child: ChildProcess | null = null;

    before(() => {
      root = mkdtempSync(join(tmpdir(), 'chartshot-durability-'));
      dataDir = join(root, 'data');
      mkdirSync(join(root, 'tmp'));
    });

    after(() => {
      killGroup(child);
      rmSync(root, { recursive: true, force: true });
    });

    /** Kills the server's whole process group (node and its Chromium), by the pid we spawned. */
    function killGroup(c: ChildProcess | null): void {
      if (c?.pid && c.exitCode === null && c.signalCode === null) {
        try {
          process.kill(-c.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
    }

    /** Starts `chartshot serve` on dataDir and a free port; resolves with its URL once it logs that it listens. */
    const serve = () =>
      spawnServe({ DATA_DIR: dataDir, POOL_SIZE: '2', TMPDIR: join(root, 'tmp') }, false, (proc) => (child = proc));

    it('every chart whose 201 reached a client resolves after a restart; used == charts stored >= 201s received', async function () {
      // The account is created before the server starts, on the same DATA_DIR (as the CLI does).
      const store = createSqliteStore(dataDir);
      const acct = await new AccountService(store, loadMasterKey(dataDir)).createAccount('enterprise', null);
      // Limits no machine can reach (as `billing set-limits` sets them): creation "at full speed"
      // must never meet a 429, however fast this machine renders.
      await new BillingService(store, systemClock, 'http://localhost').setCustomLimits(acct.account_id, { perMinute: 1_000_000, perHour: 100_000_000, burst: 1_000_000 });
      await store.close();

      const first = await serve();
      const received: string[] = [];
      let attempts = 0;
      let killed = false;
      const otherFailures: string[] = [];
      const client = async (c: number) => {
        for (let i = 0; !killed; i++) {
          const n = c * 1_000_000 + i;
          attempts++;
          try {
            const res = await post(first.url, '/v1/chart/create', tinyChart(n), apiKey(acct.api_key));
            const body = (await res.json()) as { id?: string; error?: string };
            if (res.status === 201 && body.id) received.push(body.id);
            else if (!killed) otherFailures.push(`${res.status} ${body.error}`);
          } catch (err) {
            if (!killed) otherFailures.push(String(err));
          }
        }
      };
      const clients = Array.from({ length: 6 }, (_, c) => client(c));
      // Let creation run at full speed until more than 20 charts are in (however long this
      // machine takes), then 0-1.5 s more, then SIGKILL the server mid-write.
      await waitFor('more than 20 charts created (or a failure)', () => received.length > 20 || otherFailures.length > 0, { ms: 60_000, state: () => ({ received: received.length, otherFailures }) });
      await new Promise((r) => setTimeout(r, Math.random() * 1500));
      const receivedAtKill = received.length;
      killed = true;
      first.proc.kill('SIGKILL');
      await Promise.all(clients);
      killGroup(first.proc);
      await new Promise<void>((r) => (first.proc.exitCode !== null || first.proc.signalCode !== null ? r() : first.proc.once('exit', () => r())));
      expect(first.proc.signalCode).to.equal('SIGKILL');
      expect(otherFailures, otherFailures.slice(0, 5).join('\n')).to.deep.equal([]);
      expect(received.length, 'no chart was created before the kill').to.be.greaterThan(20);

      const second = await serve();
      try {
        let lost = 0;
        // every id whose 201 was received resolves to its image (sequential in small batches)
        for (let i = 0; i < received.length; i += 8) {
          const batch = received.slice(i, i + 8);
          const statuses = await Promise.all(
            batch.map(async (id) => {
              const res = await fetch(`${second.url}/v1/chart/${id}`);
              const buf = await bytes(res);
              if (res.status !== 200) return res.status;
              expect(res.headers.get('content-type')).to.equal('image/png');
              expect(decodePng(buf).height).to.equal(30);
              return 200;
            }),
          );
          lost += statuses.filter((s) => s !== 200).length;
        }
        expect(lost, 'charts whose 201 was received but that do not resolve').to.equal(0);

        const counts = countsOf(dataDir, acct.account_id);
        // Counted and stored in one transaction: the counter equals the charts stored. A create
        // committed just before the kill whose 201 never reached its client is stored and counted
        // too, so stored >= received (by at most the number of requests in flight: 6 clients).
        expect(counts.used).to.equal(counts.charts);
        expect(counts.charts).to.be.within(received.length, received.length + 6);
        expect(counts.chartsWithoutImage).to.equal(0);
        expect(counts.integrity).to.equal('ok');

        // the restarted server's own view agrees
        const analytics = (await (await fetch(`${second.url}/usage/analytics`, { headers: { authorization: `Bearer ${acct.session_token}` } })).json()) as { currentUsage: { count: number } };
        expect(analytics.currentUsage.count).to.equal(counts.charts);
        // eslint-disable-next-line no-console
        console.log(`      SIGKILL: ${attempts} create requests, ${received.length} 201s received (${receivedAtKill} when the kill was decided), ${counts.charts} charts stored and counted, lost 0`);
      } finally {
        second.proc.kill('SIGTERM');
        await new Promise<void>((r) => (second.proc.exitCode !== null ? r() : second.proc.once('exit', () => r())));
        killGroup(second.proc);
      }
    });
  });

  describe('(b) a full disk under DATA_DIR', function () {
    // Real ENOSPC, not a mock: DATA_DIR is a 16 MB tmpfs (we run as root, where chmod does not
    // stop writes, and a tmpfs cannot be remounted read-only while the database is open), and a
    // filler file takes every free byte. Mounting needs root, which CI is: without it this fails
    // (no stand-in limit that would pass without ever filling a disk).
    let mnt: string;
    let mounted = false;
    let running: Running;
    let db: SqliteStore['db'];
    const logLines: Array<Record<string, unknown>> = [];
    let key: string;
    let accountId: string;
    const filler = () => join(mnt, 'filler');

    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n')) if (line.trim()) logLines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });

    before(async function () {
      this.timeout(60_000);
      mnt = mkdtempSync(join(tmpdir(), 'chartshot-fulldisk-'));
      mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mnt]).status === 0;
      expect(mounted, 'a 16 MB tmpfs mount as DATA_DIR (needs root)').to.equal(true);
      const config = testConfig({ dataDir: mnt, poolSize: 1 });
      running = await startServer(config, { log: createLogger('info', sink) });
      db = (running.deps.store as SqliteStore).db;
      const acct = await running.deps.accounts.createAccount('enterprise', null);
      key = acct.api_key;
      accountId = acct.account_id;
    });

    after(async function () {
      rmSync(filler(), { force: true });
      await running?.close();
      if (mounted) spawnSync('umount', [mnt]);
      rmSync(mnt, { recursive: true, force: true });
    });

    const create = (n: number, extra: Record<string, unknown> = {}) =>
      post(running.url, '/v1/chart/create', { ...tinyChart(n), ...extra }, apiKey(key));

    /** Takes the free space away, leaving about `leaveBytes`. */
    function fillDisk(leaveBytes = 0): void {
      // Empty the WAL first: otherwise SQLite overwrites the WAL's old frames and needs no new space.
      db.pragma('wal_checkpoint(TRUNCATE)');
      const fd = openSync(filler(), 'w');
      const block = Buffer.alloc(64 * 1024, 7);
      try {
        for (;;) writeSync(fd, block);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
      try {
        for (;;) writeSync(fd, block, 0, 4096);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
      closeSync(fd);
      if (leaveBytes > 0) truncateSync(filler(), Math.max(0, statSync(filler()).size - leaveBytes));
    }

    function freeDisk(): void {
      rmSync(filler(), { force: true });
    }

    it('writes fail with 500 internal_error and a log line naming the cause; existing charts are still served; nothing half-written; all well after space is freed', async function () {
      const before: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await create(i);
        expect(res.status).to.equal(201);
        before.push(((await res.json()) as { id: string }).id);
      }
      running.deps.imageCache.clearMemory(); // existing charts must come from the disk tier
      const start = countsOf(mnt, accountId);
      expect(start).to.deep.include({ charts: 3, used: 3, chartsWithoutImage: 0 });

      fillDisk();
      // A write-requiring request: 500 internal_error, the error object.
      let failed: Response | null = null;
      for (let i = 0; i < 20 && !failed; i++) {
        const res = await create(100 + i);
        if (res.status !== 201) failed = res;
        else await res.arrayBuffer();
      }
      expect(failed, 'no write failed on a full disk').to.not.equal(null);
      expect(failed!.status).to.equal(500);
      expect(await failed!.json()).to.deep.equal({ error: 'internal_error', detail: 'internal error' });
      const line = logLines.find((l) => l.level === 50 && typeof l.msg === 'string' && /full/.test(l.msg));
      expect(line, `log lines: ${JSON.stringify(logLines.filter((l) => (l.level as number) >= 50)).slice(0, 1000)}`).to.not.equal(undefined);
      expect(line!.msg).to.match(/^request failed: the disk or database is full \((SQLITE_FULL|ENOSPC)\)$/);
      expect(JSON.stringify(line)).to.not.contain(key); // the key is never logged

      // Reading keeps working: every existing chart is served (from the persistent tier).
      for (const id of before) {
        const res = await fetch(`${running.url}/v1/chart/${id}`);
        expect(res.status).to.equal(200);
        expect(res.headers.get('x-cache-tier')).to.be.oneOf(['r2', 'edge']);
        decodePng(await bytes(res));
      }
      // Nothing half-written: each stored chart has its image and its count.
      const during = countsOf(mnt, accountId);
      expect(during.used).to.equal(during.charts);
      expect(during.chartsWithoutImage).to.equal(0);

      // A create whose own transaction (chart + image + count) is larger than the space left: the
      // small writes before it (rate-limit window) may pass, the create is all or nothing.
      freeDisk();
      fillDisk(48 * 1024);
      const big = await create(999, { width: 1200, height: 900, format: 'svg', chart: { type: 'line', data: { labels: Array.from({ length: 3000 }, (_, i) => String(i)), datasets: [{ data: Array.from({ length: 3000 }, () => Math.random() * 1000) }] } } });
      // the chart, its image and its count need far more than 48 KB: the disk is full for it
      expect(big.status).to.equal(500);
      expect(((await big.json()) as { error: string }).error).to.equal('internal_error');
      const partial = countsOf(mnt, accountId);
      expect(partial.used).to.equal(partial.charts);
      expect(partial.chartsWithoutImage).to.equal(0);

      // Space back: the file is intact and the server works again without a restart.
      freeDisk();
      const again = await create(5000);
      expect(again.status).to.equal(201);
      const id = ((await again.json()) as { id: string }).id;
      expect((await fetch(`${running.url}/v1/chart/${id}`)).status).to.equal(200);
      const end = countsOf(mnt, accountId);
      expect(end.integrity).to.equal('ok');
      expect(end.used).to.equal(end.charts);
      expect(end.chartsWithoutImage).to.equal(0);
      expect((await fetch(`${running.url}/v1/status`)).status).to.equal(200);
      // eslint-disable-next-line no-console
      console.log(`      full disk (tmpfs filled to ENOSPC): big create -> ${big.status}; ${end.charts} charts = ${end.used} counted`);
    });
  });
  describe('(c) a read-only DATA_DIR', function () {
    // A real read-only file system: a read-only bind mount of a data directory (root ignores
    // chmod). A mount cannot turn read-only while the database is open for writing (EBUSY), so a
    // store that goes read-only at run time is exercised with PRAGMA query_only, which makes
    // SQLite itself refuse writes with SQLITE_READONLY through the real server.
    it('refuses to start on a read-only DATA_DIR with a message naming it, leaving the database intact', async function () {
      this.timeout(60_000);
      const dir = mkdtempSync(join(tmpdir(), 'chartshot-ro-'));
      const ro = mkdtempSync(join(tmpdir(), 'chartshot-ro-view-'));
      const store = createSqliteStore(dir);
      await new AccountService(store, loadMasterKey(dir)).createAccount('starter', null);
      await store.close();
      const mounted = spawnSync('mount', ['--bind', dir, ro]).status === 0 && spawnSync('mount', ['-o', 'remount,ro,bind', ro]).status === 0;
      try {
        expect(mounted, 'a read-only bind mount (needs root)').to.equal(true);
        let message = '';
        await startServer(testConfig({ dataDir: ro, poolSize: 1 }), { log: createLogger('silent') }).then(
          (r) => r.close(),
          (err: Error) => (message = err.message),
        );
        expect(message).to.contain(ro).and.match(/read-only/);
        const db = new Database(join(dir, 'chartshot.db'), { readonly: true, fileMustExist: true });
        expect(db.pragma('integrity_check', { simple: true })).to.equal('ok');
        db.close();
      } finally {
        spawnSync('umount', [ro]);
        rmSync(ro, { recursive: true, force: true });
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('a store that turns read-only at run time: 500 internal_error with a log line saying so; reads go on; writes resume after', async function () {
      this.timeout(60_000);
      const lines: Array<Record<string, unknown>> = [];
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
          done();
        },
      });
      const config = testConfig({ poolSize: 1 });
      const running = await startServer(config, { log: createLogger('info', sink) });
      try {
        const db = (running.deps.store as SqliteStore).db;
        const acct = await running.deps.accounts.createAccount('enterprise', null);
        const create = (n: number) =>
          post(running.url, '/v1/chart/create', tinyChart(n), apiKey(acct.api_key));
        const first = await create(1);
        expect(first.status).to.equal(201);
        const id = ((await first.json()) as { id: string }).id;
        running.deps.imageCache.clearMemory();
        db.pragma('query_only = ON');
        const refused = await create(2);
        expect(refused.status).to.equal(500);
        expect(await refused.json()).to.deep.include({ error: 'internal_error' });
        expect(lines.some((l) => typeof l.cause === 'string' && /read-only/.test(l.cause as string)) || lines.some((l) => /read-only/.test(JSON.stringify(l))), 'a log line names the cause').to.equal(true);
        expect((await fetch(`${running.url}/v1/chart/${id}`)).status).to.equal(200);
        db.pragma('query_only = OFF');
        expect((await create(3)).status).to.equal(201);
        const counts = countsOf(config.dataDir, acct.account_id);
        expect(counts).to.deep.include({ charts: 2, used: 2, chartsWithoutImage: 0, integrity: 'ok' });
      } finally {
        await running.close();
        rmSync(config.dataDir, { recursive: true, force: true });
      }
    });
  });

  describe('(d) a full disk while a webhook delivery is due', function () {
    let mnt: string;
    let mounted = false;
    let child: ChildProcess | null = null;
    const filler = () => join(mnt, 'filler');
    const receiver = createHttpServer();
    let hits = 0;
    let held: ServerResponse | null = null;
    let holdNext = true;
    let firstHit: () => void = () => undefined;
    const gotFirst = new Promise<void>((r) => (firstHit = r));

    before(async function () {
      mnt = mkdtempSync(join(tmpdir(), 'chartshot-fulldisk-outbox-'));
      mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', mnt]).status === 0;
      // Across processes only a real full file system gives the server SQLITE_FULL.
      expect(mounted, 'a 16 MB tmpfs mount (needs root)').to.equal(true);
      mkdirSync(join(mnt, 'data'));
      receiver.on('request', (req, res) => {
        req.resume();
        req.on('end', () => {
          hits++;
          // the first delivery is held open until the disk is full: its record is what fails
          if (holdNext) {
            holdNext = false;
            held = res;
            firstHit();
          } else res.writeHead(204).end();
        });
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
    });

    after(() => {
      if (child?.pid && child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      receiver.close();
      if (mounted) {
        rmSync(filler(), { force: true });
        spawnSync('umount', [mnt]);
      }
      rmSync(mnt, { recursive: true, force: true });
    });

    /** `chartshot serve` on the tmpfs; resolves once it listens; `log()` is everything it printed. */
    const serve = () =>
      spawnServe({ DATA_DIR: join(mnt, 'data'), POOL_SIZE: '1', WEBHOOK_ALLOW_PRIVATE: 'true' }, true, (proc) => (child = proc));

    /** The outbox row as the file holds it (our own read-only connection). */
    function outboxRow(id: number): { status: string; attempts: number } {
      const db = new Database(join(mnt, 'data', 'chartshot.db'), { readonly: true, fileMustExist: true });
      try {
        return db.prepare('SELECT status, attempts FROM outbox WHERE id = ?').get(id) as { status: string; attempts: number };
      } finally {
        db.close();
      }
    }

    /** Log lines of outbox work that failed on the full disk (a claim, a send or its record). */
    const outboxFailures = (log: string) => (log.match(/outbox tick failed|outbox delivery failed|recording an outbox delivery failed/g) ?? []).length;

    function fill(): void {
      // Empty the WAL first, so the server's next write needs new space.
      const db = new Database(join(mnt, 'data', 'chartshot.db'), { fileMustExist: true });
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
      const fd = openSync(filler(), 'w');
      const block = Buffer.alloc(64 * 1024, 7);
      for (const size of [block.length, 4096, 512]) {
        try {
          for (;;) writeSync(fd, block, 0, size);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
        }
      }
      closeSync(fd);
    }

    it('the process keeps serving, restarts with the disk still full and serves reads, and records the delivery once space returns', async function () {
      this.timeout(180_000);
      const dataDir = join(mnt, 'data');
      const store = createSqliteStore(dataDir);
      const acct = await new AccountService(store, loadMasterKey(dataDir)).createAccount('enterprise', null);
      const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      await store.close();

      const first = await serve();
      const created = await post(first.url, '/v1/chart/create', tinyChart(1), apiKey(acct.api_key));
      expect(created.status).to.equal(201);
      const chartId = ((await created.json()) as { id: string }).id;
      // a due webhook, written while there is space (as usage_threshold would write it)
      const writer = createSqliteStore(dataDir);
      const itemId = await writer.outbox.enqueue({ kind: 'webhook', accountId: acct.account_id, target: hookUrl, subject: 'usage_threshold', body: '{"event":"usage_threshold"}' }, Date.now());
      await writer.close();

      await gotFirst; // the server is POSTing it now
      fill();
      held!.writeHead(204).end();
      // its "delivered" write hits the full disk: logged, and the process goes on
      await waitFor('the failed record is logged', () => /recording an outbox delivery failed/.test(first.log()) || first.proc.exitCode !== null);
      // a few more polls, each failing again: counted in the log, not waited for by the clock
      await waitFor('two more failed records', () => outboxFailures(first.log()) >= 3 || first.proc.exitCode !== null);
      expect(first.proc.exitCode, first.log().slice(-3000)).to.equal(null);
      expect((await fetch(`${first.url}/v1/status`)).status).to.equal(200);
      expect((await fetch(`${first.url}/v1/chart/${chartId}`)).status).to.equal(200);
      const refused = await post(first.url, '/v1/chart/create', tinyChart(2), apiKey(acct.api_key));
      expect(refused.status).to.equal(500);
      expect(((await refused.json()) as { error: string }).error).to.equal('internal_error');
      expect(outboxRow(itemId).status).to.equal('pending');

      // restart with the disk still full
      first.proc.kill('SIGTERM');
      await first.exited;
      const second = await serve();
      try {
        const read = await fetch(`${second.url}/v1/chart/${chartId}`);
        expect(read.status).to.equal(200);
        decodePng(await bytes(read));
        expect((await fetch(`${second.url}/v1/status`)).status).to.equal(200);
        // its outbox polls meet the full disk too: two of them, and it is still up
        await waitFor('two outbox polls on the full disk', () => outboxFailures(second.log()) >= 2 || second.proc.exitCode !== null);
        expect(second.proc.exitCode, second.log().slice(-3000)).to.equal(null);

        // space returns: the delivery is recorded without a restart, and writes work again
        rmSync(filler(), { force: true });
        await waitFor('the webhook is recorded as delivered', () => outboxRow(itemId).status === 'delivered');
        expect(hits).to.be.at.least(1);
        const again = await post(second.url, '/v1/chart/create', tinyChart(3), apiKey(acct.api_key));
        expect(again.status).to.equal(201);
        // eslint-disable-next-line no-console
        console.log(`      full disk + due webhook: ${hits} POST(s) received, delivered once space returned, no crash`);
      } finally {
        second.proc.kill('SIGTERM');
        await second.exited;
      }
    });
  });

  describe('(e) SIGTERM right after a burst of renders', function () {
    let root: string;
    let child: ChildProcess | null = null;

    before(() => {
      root = mkdtempSync(join(tmpdir(), 'chartshot-sigterm-'));
    });
    after(() => {
      if (child?.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
      rmSync(root, { recursive: true, force: true });
    });

    it('every render and request is counted once: usage and the batched request analytics (decision 0029) reach the file', async function () {
      const dataDir = join(root, 'data');
      const store = createSqliteStore(dataDir);
      // enterprise: its generations are counted beside the render, their render time added after (the batched path)
      const acct = await new AccountService(store, loadMasterKey(dataDir)).createAccount('enterprise', null);
      await new BillingService(store, systemClock, 'http://localhost').setCustomLimits(acct.account_id, { perMinute: 1_000_000, perHour: 100_000_000, burst: 1_000_000 });
      await store.close();

      const served = await spawnServe({ DATA_DIR: dataDir, POOL_SIZE: '2' }, false, (proc) => (child = proc));
      const BURST = 16;
      const statuses = await Promise.all([
        ...Array.from({ length: BURST }, (_, n) => post(served.url, '/v1/chart', tinyChart(n), apiKey(acct.api_key)).then(async (r) => (await bytes(r), r.status))),
        // a refused request is counted as a request, not as a success
        post(served.url, '/v1/chart', { chart: { type: 'bar' }, width: 0, height: 30 }, apiKey(acct.api_key)).then(async (r) => (await bytes(r), r.status)),
      ]);
      expect(statuses).to.deep.equal([...Array<number>(BURST).fill(200), 400]);
      // at once: the analytics of the burst are still in memory, written by the clean shutdown
      served.proc.kill('SIGTERM');
      expect(await served.exited).to.equal(0);

      const db = new Database(join(dataDir, 'chartshot.db'), { readonly: true, fileMustExist: true });
      try {
        const used = (db.prepare('SELECT COALESCE(SUM(used), 0) AS n FROM usage_counters WHERE account_id = ?').get(acct.account_id) as { n: number }).n;
        const daily = db.prepare('SELECT SUM(requests) AS requests, SUM(succeeded) AS succeeded, SUM(renders) AS renders, SUM(render_ms) AS ms, SUM(cache_hits) AS hits FROM usage_daily WHERE account_id = ?').get(acct.account_id) as Record<string, number>;
        expect(used).to.equal(BURST);
        expect(daily).to.include({ requests: BURST + 1, succeeded: BURST, renders: BURST, hits: 0 });
        // the render times were written too (added after the counts, in the batch)
        expect(daily.ms).to.be.greaterThan(0);
      } finally {
        db.close();
      }
    });
  });
});
