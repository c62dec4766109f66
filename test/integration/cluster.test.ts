// Two chartshot instances on one PostgreSQL and one Redis behind nginx running the shipped
// deploy/nginx.conf (round robin, TRUST_PROXY):
// keys, short URLs, limits, webhooks and a killed instance, all seen through the load balancer.
import { expect } from 'chai';
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort, testDatabase, testRedis, type TestDatabase } from '../helpers/services.js';
import { startNginx, type LoadBalancer } from '../helpers/nginx.js';
import { apiKey } from '../helpers/client.js';
import { waitFor } from '../helpers/poll.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Instance {
  port: number;
  url: string;
  proc: ChildProcess;
  dataDir: string;
  exited: Promise<void>;
}

const chart = (title: string) => ({ type: 'bar', data: { labels: ['a', 'b', 'c'], datasets: [{ label: title, data: [3, 1, 2] }] } });

describe('a cluster: two instances, PostgreSQL, Redis and nginx', function () {
  this.timeout(180_000);
  let db: TestDatabase;
  let lb: LoadBalancer;
  let env: NodeJS.ProcessEnv;
  const instances: Instance[] = [];
  let hooks: Server;
  const received: Array<{ event: string; threshold: number; account: string; delivery: string }> = [];

  const cli = async (...args: string[]): Promise<string> => (await run('node', ['dist/cli.js', ...args], { cwd: ROOT, env, encoding: 'utf8' })).stdout;
  const account = async (plan: string) => JSON.parse(await cli('accounts', 'create', '--plan', plan, '--json')) as { account_id: string; api_key: string; key_id: string };
  const postJson = (base: string, path: string, body: unknown, key: string) =>
    fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...apiKey(key) }, body: JSON.stringify(body) });

  async function startInstance(port: number): Promise<Instance> {
    const dataDir = mkdtempSync(join(tmpdir(), 'chartshot-cluster-'));
    const proc = spawn('node', ['dist/cli.js', 'serve'], { cwd: ROOT, env: { ...env, PORT: String(port), DATA_DIR: dataDir }, stdio: ['ignore', 'ignore', 'pipe'] });
    proc.stderr!.resume();
    const exited = new Promise<void>((r) => proc.once('exit', () => r()));
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if (proc.exitCode !== null) throw new Error(`instance on ${port} exited at start`);
      const ok = await fetch(`${url}/v1/status`).then((r) => r.status === 200, () => false);
      if (ok) break;
      if (i > 600) throw new Error(`instance on ${port} did not start`);
      await sleep(100);
    }
    return { port, url, proc, dataDir, exited };
  }

  before(async () => {
    db = await testDatabase();
    const redis = await testRedis();
    hooks = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event: string; threshold: number; account_id: string };
        received.push({ event: body.event, threshold: body.threshold, account: body.account_id, delivery: String(req.headers['x-chartshot-delivery']) });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', () => r()));
    const ports = [await freePort(), await freePort()];
    // the shipped deploy/nginx.conf, its upstream and listen addresses substituted
    lb = await startNginx(ports, { shipped: true });
    env = {
      ...process.env,
      DATABASE_URL: db.url,
      REDIS_URL: redis.url,
      MASTER_KEY: randomBytes(32).toString('hex'),
      TRUST_PROXY: 'true',
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: lb.url,
      LOG_LEVEL: 'warn',
      POOL_SIZE: '1',
      OPEN_RENDERS_PER_HOUR: '5',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ACQUIRE_TIMEOUT_MS: '30000',
    };
    // both start (and migrate) together: the advisory lock lets one migrate
    instances.push(...(await Promise.all(ports.map((p) => startInstance(p)))));
  });

  after(async () => {
    for (const i of instances) {
      if (i.proc.exitCode === null && i.proc.signalCode === null) i.proc.kill('SIGTERM');
      await Promise.race([i.exited, sleep(15_000)]);
      rmSync(i.dataDir, { recursive: true, force: true });
    }
    await lb?.stop();
    await new Promise<void>((r) => (hooks ? hooks.close(() => r()) : r()));
    await db?.drop();
  });

  it('a key created by the CLI works on both instances; a short URL created on one is served by the other; a revocation reaches both', async () => {
    const a = await account('starter');
    const [one, two] = instances as [Instance, Instance];
    for (const i of instances) expect((await postJson(i.url, '/v1/chart', { chart: chart('cli key'), width: 120, height: 60 }, a.api_key)).status, i.url).to.equal(200);
    const created = await postJson(one.url, '/v1/chart/create', { chart: chart('made on one'), width: 160, height: 80 }, a.api_key);
    expect(created.status).to.equal(201);
    const { id, url } = (await created.json()) as { id: string; url: string };
    expect(url).to.equal(`${lb.url}/v1/chart/${id}`);
    const fromTwo = await fetch(`${two.url}/v1/chart/${id}`);
    const fromOne = await fetch(`${one.url}/v1/chart/${id}`);
    expect(fromTwo.status).to.equal(200);
    expect(Buffer.from(await fromTwo.arrayBuffer()).equals(Buffer.from(await fromOne.arrayBuffer()))).to.equal(true);
    expect((await fetch(url)).status).to.equal(200);

    await cli('keys', 'revoke', a.key_id);
    for (const i of instances) {
      let status = 0;
      for (let t = 0; t < 100; t++) {
        status = (await postJson(i.url, '/v1/chart', { chart: chart('revoked'), width: 120, height: 60 }, a.api_key)).status;
        if (status === 401) break;
        await sleep(50);
      }
      expect(status, `revoked key on ${i.url}`).to.equal(401);
    }
  });

  it('rate limits hold exactly across instances: a burst of 10 lets 10 of 30 parallel requests through', async () => {
    const a = await account('enterprise');
    await cli('billing', 'set-limits', '--account', a.account_id, '--per-minute', '1', '--per-hour', '1000', '--burst', '10');
    const statuses = await Promise.all(
      Array.from({ length: 30 }, () => postJson(lb.url, '/v1/chart', { chart: chart('burst'), width: 100, height: 60 }, a.api_key).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200).length, statuses.join(',')).to.equal(10);
    expect(statuses.filter((s) => s === 429).length).to.equal(20);
  });

  it('the trial cap holds across instances: 50 parallel requests on a trial with 10 generations left give exactly 10 images', async () => {
    const a = await account('trial');
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    try {
      await c.query(
        'INSERT INTO usage_counters (account_id, period_start, used, reserved) VALUES ($1, 0, 90, 0) ON CONFLICT (account_id, period_start) DO UPDATE SET used = 90',
        [a.account_id],
      );
    } finally {
      await c.end();
    }
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        postJson(lb.url, '/v1/chart', { chart: chart(`trial ${i}`), width: 100, height: 60 }, a.api_key).then(async (r) => ({ status: r.status, code: r.status === 429 ? ((await r.json()) as { error: string }).error : null })),
      ),
    );
    expect(answers.filter((x) => x.status === 200).length).to.equal(10);
    expect(answers.every((x) => x.status === 200 || x.status === 429)).to.equal(true);
    expect(answers.some((x) => x.code === 'trial_limit_reached')).to.equal(true);
    const after = await postJson(lb.url, '/v1/chart', { chart: chart('trial after'), width: 100, height: 60 }, a.api_key);
    expect(after.status).to.equal(429);
  });

  it("the open endpoint's per-address limit holds across instances: 5 new renders an hour of 12 asked", async () => {
    const salt = randomBytes(4).toString('hex');
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const c = encodeURIComponent(JSON.stringify(chart(`open ${salt} ${i}`)));
      statuses.push((await fetch(`${lb.url}/v1/open/chart?c=${c}`)).status);
    }
    expect(statuses.filter((s) => s === 200).length, statuses.join(',')).to.equal(5);
    expect(statuses.filter((s) => s === 429).length).to.equal(7);
  });

  it('a usage threshold crossed by requests spread over both instances is delivered once each', async () => {
    const a = await account('enterprise');
    await cli('billing', 'set-limits', '--account', a.account_id, '--charts', '10', '--per-minute', '1000', '--per-hour', '100000', '--burst', '1000');
    await cli('billing', 'set-webhook', '--account', a.account_id, '--url', `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`);
    for (let i = 0; i < 10; i++) {
      expect((await postJson(lb.url, '/v1/chart', { chart: chart(`threshold ${i}`), width: 100, height: 60 }, a.api_key)).status).to.equal(200);
    }
    const mine = () => received.filter((r) => r.account === a.account_id && r.event === 'usage_threshold');
    // The marker is the store's rows, not a wait: an item leaves 'pending' only once a delivery is
    // recorded, and no instance can claim it again after that (FOR UPDATE SKIP LOCKED and a lease
    // hold it while it is being sent). A second sender would have recorded a second attempt.
    const rows = async () => {
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      try {
        return (await c.query<{ id: number; status: string; attempts: number }>("SELECT id, status, attempts FROM outbox WHERE account_id = $1 AND kind = 'webhook' ORDER BY id", [a.account_id])).rows;
      } finally {
        await c.end();
      }
    };
    let settled = await rows();
    await waitFor(
      'three webhook rows delivered',
      async () => (settled = await rows()).length === 3 && settled.every((r) => r.status === 'delivered'),
      { stepMs: 50, state: () => settled },
    );
    expect(settled.map((r) => [r.status, r.attempts])).to.deep.equal([['delivered', 1], ['delivered', 1], ['delivered', 1]]);
    expect(mine().map((r) => r.threshold).sort((x, y) => x - y)).to.deep.equal([80, 95, 100]);
    // each delivery names its outbox row: one of each, none twice
    expect(mine().map((r) => Number(r.delivery)).sort((x, y) => x - y)).to.deep.equal(settled.map((r) => Number(r.id)));
  });

  it('SIGKILL of one instance under load loses no chart answered 201, and the load balancer serves within 5 s', async () => {
    const a = await account('growth');
    const created: string[] = [];
    const statuses: number[] = [];
    const failures: string[] = [];
    let killedAt = 0;
    let firstAfterKill = 0;
    let n = 0;
    const worker = async () => {
      while (n < 60) {
        const i = n++;
        if (i === 15 && !killedAt) {
          killedAt = Date.now();
          instances[0]!.proc.kill('SIGKILL');
        }
        const body = { chart: chart(`load ${i}`), width: 100, height: 60 };
        let r = await postJson(lb.url, '/v1/chart/create', body, a.api_key).catch(() => null);
        // 503 is the surviving instance busy with the whole load on its one page (its queue's
        // estimated wait, which a loaded machine stretches): a client retries after Retry-After,
        // as the answer asks. Nothing was created; it is not a request the killed instance held.
        for (let retry = 0; r?.status === 503 && retry < 5; retry++) {
          await sleep(Math.min(5, Number(r.headers.get('retry-after')) || 1) * 1000);
          r = await postJson(lb.url, '/v1/chart/create', body, a.api_key).catch(() => null);
        }
        statuses.push(r?.status ?? 0);
        if (r && r.status !== 201) failures.push(`${i}: ${r.status} ${await r.text()}`);
        if (r?.status === 201) {
          created.push(((await r.json()) as { id: string }).id);
          if (killedAt && !firstAfterKill) firstAfterKill = Date.now();
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    await instances[0]!.exited;
    expect(killedAt).to.be.greaterThan(0);
    expect(firstAfterKill - killedAt, `first 201 after the kill, ms (statuses ${statuses.join(',')})`).to.be.lessThan(5000);
    // only the requests the killed instance had in hand may fail (nginx does not resend a POST it sent)
    expect(statuses.filter((s) => s !== 201).length, `${statuses.join(',')}\n${failures.join('\n')}`).to.be.at.most(4);
    for (const id of created) expect((await fetch(`${lb.url}/v1/chart/${id}`)).status, id).to.equal(200);
  });
});
