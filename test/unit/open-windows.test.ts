// The open endpoint's per-client render windows in SQLite: a sliding hour, exact counts,
// Retry-After from the render whose expiry frees a slot, and persistence across restarts.
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteStore } from '../../src/store/sqlite/index.js';

const HOUR = 3_600_000;

describe('open render windows (SQLite)', () => {
  it('admits `limit` renders per sliding hour per client, then refuses with the wait', async () => {
    const store = createSqliteStore(':memory:');
    try {
      const w = store.openWindows;
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
    } finally {
      await store.close();
    }
  });

  it('limit 0 refuses everything with a wait of one window', async () => {
    const store = createSqliteStore(':memory:');
    try {
      expect(await store.openWindows.take('a', 1000, HOUR, 0)).to.deep.equal({ allowed: false, used: 0, retryAfterMs: HOUR });
    } finally {
      await store.close();
    }
  });

  it('purge forgets renders older than the window', async () => {
    const store = createSqliteStore(':memory:');
    try {
      for (let i = 0; i < 5; i++) await store.openWindows.take(`c${i}`, i, HOUR, 10);
      expect(await store.openWindows.purge(2)).to.equal(3);
      expect(await store.openWindows.purge(2)).to.equal(0);
    } finally {
      await store.close();
    }
  });

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
