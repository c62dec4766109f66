// The store contract suite: the same tests against every Store implementation, SQLite (in
// memory) and PostgreSQL (a database of its own on the run's throwaway server).
import type { Store } from '../../src/store/types.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { createPgStore, type PgStore } from '../../src/store/pg/index.js';
import { testDatabase, type TestDatabase } from './services.js';

export interface Backend {
  name: 'SQLite' | 'PostgreSQL';
  /** A store for one describe block (called from `before`). */
  open(): Promise<Store>;
  /** Empties it between tests (called from `beforeEach`). */
  reset(store: Store): Promise<void>;
  close(store: Store): Promise<void>;
}

const sqlite: Backend = {
  name: 'SQLite',
  open: async () => createSqliteStore(':memory:'),
  async reset(store) {
    // a fresh in-memory database per test is cheaper than emptying one
    void store;
  },
  close: (store) => store.close(),
};

const databases = new WeakMap<Store, TestDatabase>();

const postgres: Backend = {
  name: 'PostgreSQL',
  async open() {
    const db = await testDatabase();
    const store = await createPgStore({ url: db.url, max: 4 });
    databases.set(store, db);
    return store;
  },
  async reset(store) {
    const db = (store as PgStore).db;
    const tables = await db.rows<{ t: string }>(
      "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT IN ('chartshot_migrations', 'open_cache_bytes')",
    );
    await db.exec(`TRUNCATE ${tables.map((r) => `"${r.t}"`).join(', ')} RESTART IDENTITY CASCADE`);
    await db.exec('UPDATE open_cache_bytes SET bytes = 0');
  },
  async close(store) {
    await store.close();
    await databases.get(store)?.drop();
  },
};

export const BACKENDS: readonly Backend[] = [sqlite, postgres];

/**
 * Defines `body` once per backend, as "<title> (SQLite)" and "<title> (PostgreSQL)"; `store()`
 * is an empty store in every test. SQLite gets a new in-memory database per test, PostgreSQL a
 * database per block, emptied before each test.
 */
export function eachStore(title: string, body: (store: () => Store, backend: Backend) => void): void {
  for (const backend of BACKENDS) {
    describe(`${title} (${backend.name})`, function () {
      this.timeout(60000);
      let current: Store | undefined;
      let shared: Store | undefined;
      before(async () => {
        if (backend.name === 'PostgreSQL') shared = await backend.open();
      });
      beforeEach(async () => {
        if (shared) {
          await backend.reset(shared);
          current = shared;
        } else {
          current = await backend.open();
        }
      });
      afterEach(async () => {
        if (!shared && current) await backend.close(current);
        current = undefined;
      });
      after(async () => {
        if (shared) await backend.close(shared);
      });
      body(() => {
        if (!current) throw new Error('store() is only available inside a test');
        return current;
      }, backend);
    });
  }
}
