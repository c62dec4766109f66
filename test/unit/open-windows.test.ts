// The open endpoint's per-client render windows on every store: a sliding hour, exact counts,
// Retry-After from the render whose expiry frees a slot, exact under concurrency, and (SQLite)
// persistence across restarts.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { eachStore } from '../helpers/stores.js';
import { anotherInstance } from '../helpers/instances.js';

const HOUR = 3_600_000;

eachStore('open render windows', (store, backend) => {
  it('admits `limit` renders per sliding hour per client, then refuses with the wait', async () => {
    const w = store().openWindows;
    const t0 = 1_700_000_000_000;
    for (let i = 0; i < 3; i++) {
      expect(await w.take('a', t0 + i * 1000, HOUR, 3)).to.deep.equal({ allowed: true, used: i + 1, retryAfterMs: 0 });
    }
    const refused = await w.take('a', t0 + 10_000, HOUR, 3);
    expect(refused).to.deep.equal({ allowed: false, used: 3, retryAfterMs: HOUR - 10_000 });
    expect((await w.take('b', t0 + 10_000, HOUR, 3)).allowed, 'another client').to.equal(true);
    // the first render leaves the window exactly one hour after it was made
    expect((await w.take('a', t0 + HOUR - 1, HOUR, 3)).allowed).to.equal(false);
    expect((await w.take('a', t0 + HOUR, HOUR, 3))).to.deep.include({ allowed: true, used: 3 });
    // a refusal is not recorded: the next slot frees when the second render expires
    expect((await w.take('a', t0 + HOUR + 1, HOUR, 3)).retryAfterMs).to.equal(1000 - 1);
  });

  it('limit 0 refuses everything with a wait of one window', async () => {
    expect(await store().openWindows.take('a', 1000, HOUR, 0)).to.deep.equal({ allowed: false, used: 0, retryAfterMs: HOUR });
  });

  it('purge forgets renders older than the window', async () => {
    for (let i = 0; i < 5; i++) await store().openWindows.take(`c${i}`, i, HOUR, 10);
    expect(await store().openWindows.purge(2)).to.equal(3);
    expect(await store().openWindows.purge(2)).to.equal(0);
  });

  it('20 takes at once with a limit of 5 admit exactly 5', async () => {
    const takes = await Promise.all(Array.from({ length: 20 }, () => store().openWindows.take('198.51.100.1', 5000, HOUR, 5)));
    expect(takes.filter((t) => t.allowed)).to.have.length(5);
    expect(takes.filter((t) => !t.allowed).every((t) => t.used === 5)).to.equal(true);
  });

  if (backend.name === 'PostgreSQL') {
    it('two instances taking at once for one client admit exactly the limit between them', async () => {
      const other = await anotherInstance(store(), backend);
      try {
        const both = [store(), other];
        const takes = await Promise.all(Array.from({ length: 40 }, (_, i) => both[i % 2]!.openWindows.take('2001:db8::', 5000 + (i % 7), HOUR, 5)));
        expect(takes.filter((t) => t.allowed)).to.have.length(5);
        expect((await other.openWindows.take('2001:db8::', 6000, HOUR, 5)).allowed).to.equal(false);
      } finally {
        await other.close();
      }
    });
  }
});

describe('open render windows (SQLite file)', () => {
  it('windows survive a restart (SQLite file in DATA_DIR)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chartshot-windows-'));
    try {
      const first = createSqliteStore(dir);
      await first.openWindows.take('203.0.113.7', 1000, HOUR, 2);
      await first.openWindows.take('203.0.113.7', 2000, HOUR, 2);
      await first.close();
      const second = createSqliteStore(dir);
      expect((await second.openWindows.take('203.0.113.7', 3000, HOUR, 2)).allowed).to.equal(false);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
