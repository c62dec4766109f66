// StatusService against a fake pool and store: when is the service healthy, and why not.
import { expect } from 'chai';
import { StatusService, type ProbePool } from '../../src/services/status.js';
import type { PageResult, PoolStats } from '../../src/render/renderer.js';

const STATS: PoolStats = {
  size: 2, available: 2, borrowed: 0, pending: 0, browserRestarts: 0, pagesCreated: 2, pagesDestroyed: 0, queueRejections: 0, browserConnected: true,
};

function fakePool(stats: Partial<PoolStats>, render: () => Promise<PageResult> = async () => ({ ok: true, data: '', ms: 1, ranFunctions: false })) {
  let probes = 0;
  const pool: ProbePool & { probes: () => number } = {
    stats: () => ({ ...STATS, ...stats }),
    render: () => {
      probes++;
      return render();
    },
    probes: () => probes,
  };
  return pool;
}

const store = { ping: async () => 0.25 };
const opts = { buildHash: 'abc123', googleOAuth: false, probeTtlMs: 60_000, probeDeadlineMs: 200 };

describe('StatusService', () => {
  it('healthy when the browser is up and a probe render succeeds; the documented fields', async () => {
    const pool = fakePool({});
    const r = await new StatusService(pool, store, opts, { now: () => Date.UTC(2025, 0, 2) }).report();
    expect(r).to.deep.equal({ status: 'healthy', buildHash: 'abc123', kvLatency: 0.25, oauth: { google: false }, timestamp: '2025-01-02T00:00:00.000Z' });
    expect(pool.probes()).to.equal(1);
  });

  it('reports the memory wall as the pool has it, a cgroup or none with the reason', async () => {
    const on = { cgroup: 'v2' as const, limitMb: 2048, pidsMax: 576, renderBudgetMb: 256 };
    expect((await new StatusService(fakePool({ memoryWall: on }), store, opts).report()).memoryWall).to.deep.equal(on);
    const off = { cgroup: 'none' as const, limitMb: null, pidsMax: null, renderBudgetMb: 256, reason: 'no cgroup filesystem at /sys/fs/cgroup' };
    const r = await new StatusService(fakePool({ memoryWall: off }), store, opts).report();
    expect(r.memoryWall).to.deep.equal(off);
    expect(r.status).to.equal('healthy');
  });

  it("reports Node's heap limit as it was given, and nothing when none was", async () => {
    const nodeHeap = { limitMb: 1072, oldSpaceMb: 1024, source: 'cgroup v2 memory.max', memoryMb: 4096, memorySource: 'cgroup v2 memory.max' as const };
    expect((await new StatusService(fakePool({}), store, { ...opts, nodeHeap }).report()).nodeHeap).to.deep.equal(nodeHeap);
    expect(await new StatusService(fakePool({}), store, opts).report()).to.not.have.property('nodeHeap');
  });

  it('reuses a probe result within its ttl', async () => {
    const pool = fakePool({});
    const svc = new StatusService(pool, store, opts);
    await svc.report();
    await svc.report();
    expect(pool.probes()).to.equal(1);
  });

  it('degraded with a reason when the browser is disconnected (no probe)', async () => {
    const pool = fakePool({ browserConnected: false });
    const r = await new StatusService(pool, store, opts).report();
    expect(r.status).to.equal('degraded');
    expect(r.reason).to.match(/browser/);
    expect(pool.probes()).to.equal(0);
  });

  it('degraded when no page is alive', async () => {
    const r = await new StatusService(fakePool({ available: 0, borrowed: 0 }), store, opts).report();
    expect(r).to.include({ status: 'degraded' });
    expect(r.reason).to.match(/no live render pages/);
  });

  it('degraded when the probe fails', async () => {
    const pool = fakePool({}, async () => {
      throw new Error('boom');
    });
    const r = await new StatusService(pool, store, opts).report();
    expect(r.status).to.equal('degraded');
    expect(r.reason).to.match(/probe render failed: boom/);
  });

  it('does not hang on a probe that never finishes: degraded after the deadline', async () => {
    const pool = fakePool({}, () => new Promise<PageResult>(() => {}));
    const started = Date.now();
    const r = await new StatusService(pool, store, opts).report();
    expect(r.status).to.equal('degraded');
    expect(r.reason).to.match(/longer than 200 ms/);
    expect(Date.now() - started).to.be.below(5000);
  });

  it('a fully busy pool is not probed (would queue behind real work) and stays healthy', async () => {
    const pool = fakePool({ available: 0, borrowed: 2, pending: 3 });
    const r = await new StatusService(pool, store, opts).report();
    expect(r.status).to.equal('healthy');
    expect(pool.probes()).to.equal(0);
  });

  it('oauth.google follows the option; store failure is degraded', async () => {
    const broken = { ping: async (): Promise<number> => { throw new Error('disk gone'); } };
    const r = await new StatusService(fakePool({}), broken, { ...opts, googleOAuth: true }).report();
    expect(r.oauth).to.deep.equal({ google: true });
    expect(r.status).to.equal('degraded');
    expect(r.reason).to.match(/store unreachable: disk gone/);
  });

  it('reports how Chromium is contained; sandbox off carries a warning and is still healthy', async () => {
    const on = await new StatusService(fakePool({ renderer: { sandbox: 'on', mode: 'setpriv', uid: 65534 } }), store, opts).report();
    expect(on.renderer).to.deep.equal({ sandbox: 'on', mode: 'setpriv', uid: 65534 });
    const off = await new StatusService(fakePool({ renderer: { sandbox: 'off', mode: 'off', uid: 0 } }), store, opts).report();
    expect(off.status).to.equal('healthy');
    expect(off.renderer).to.include({ sandbox: 'off', mode: 'off', uid: 0 });
    expect(off.renderer!.warning).to.match(/sandbox is off/);
  });
});
