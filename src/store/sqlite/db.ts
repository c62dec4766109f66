import Database from 'better-sqlite3';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS } from './migrations.js';
import { ensurePrivateDir, privateFile } from '../dataDir.js';

export type DB = Database.Database;

/** Opens (creating) the database in dataDir, or in memory for ':memory:'; WAL; migrated. */
export function openDatabase(dataDir: string | ':memory:'): DB {
  let db: DB;
  if (dataDir === ':memory:') db = new Database(':memory:');
  else {
    ensurePrivateDir(dataDir);
    try {
      // access() answers EROFS even for root, whom chmod does not stop.
      accessSync(dataDir, constants.W_OK);
      const file = join(dataDir, 'chartshot.db');
      db = new Database(file);
      // Owner-only before WAL starts: SQLite gives the -wal and -shm files the database's mode.
      for (const f of [file, `${file}-wal`, `${file}-shm`]) privateFile(f);
      db.pragma('journal_mode = WAL');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      const why = code === 'EROFS' || code.startsWith('SQLITE_READONLY') ? 'is on a read-only file system' : `cannot be written (${code || (err as Error).message})`;
      throw new Error(`DATA_DIR ${dataDir} ${why}: chartshot keeps its database there and must be able to write it`);
    }
  }
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

export function migrate(db: DB): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(`database schema version ${current} is newer than this build (${MIGRATIONS.length})`);
  }
  for (let v = current; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}
