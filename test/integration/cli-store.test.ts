// The built CLI says where it works: which DATA_DIR (or database) it created, and that a key made
// in a new, empty store is unknown to a server using another one.
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { useCli } from '../helpers/cli.js';
import { describeStore, newStoreNotice } from '../../src/store/open.js';
import { testDatabase } from '../helpers/services.js';

describe('CLI: which store a command uses', function () {
  const cli = useCli('chartshot-cli-store-');

  it('accounts create in a folder with no database names it on stderr and warns about the key; stdout stays the JSON', () => {
    const dataDir = join(cli.dataDir, 'fresh');
    const r = cli.runWith({ DATA_DIR: dataDir }, 'accounts', 'create', '--plan', 'starter', '--json');
    expect(r.code, r.err).to.equal(0);
    expect(JSON.parse(r.out)).to.have.property('api_key');
    expect(r.err).to.contain(`chartshot: created a new, empty store: DATA_DIR ${dataDir} (set DATA_DIR to use another)`);
    expect(r.err).to.contain(`a server using another DATA_DIR will not know this key; start the server with DATA_DIR=${dataDir}`);
    expect(existsSync(join(dataDir, 'chartshot.db'))).to.equal(true);
    // the store exists now: nothing more is said
    const again = cli.runWith({ DATA_DIR: dataDir }, 'accounts', 'create', '--plan', 'starter', '--json');
    expect(again.code).to.equal(0);
    expect(again.err).to.equal('');
    const account = (JSON.parse(again.out) as { account_id: string }).account_id;
    const keys = cli.runWith({ DATA_DIR: dataDir }, 'keys', 'create', '--account', account, '--json');
    expect(keys.code).to.equal(0);
    expect(keys.err).to.equal('');
  });

  it('other commands that create the store name it without the key warning', () => {
    const dataDir = join(cli.dataDir, 'billing');
    const r = cli.runWith({ DATA_DIR: dataDir }, 'billing', 'run-scheduler', '--json');
    expect(r.code, r.err).to.equal(0);
    expect(r.err).to.equal(`chartshot: created a new, empty store: DATA_DIR ${dataDir} (set DATA_DIR to use another)\n`);
    const sessions = cli.runWith({ DATA_DIR: join(cli.dataDir, 'sessions') }, 'sessions', 'create', '--account', 'acct_none', '--json');
    expect(sessions.err).to.contain('created a new, empty store: DATA_DIR');
    expect(sessions.err).not.to.contain('will not know this key');
  });

  it('DATABASE_URL: a database without chartshot\'s tables is named once, its password hidden', async function () {
    this.timeout(120000);
    const db = await testDatabase();
    try {
      const url = new URL(db.url);
      url.password = 'hunter2-secret'; // trust authentication ignores it; it must never be printed
      const env = { DATABASE_URL: url.toString(), MASTER_KEY: 'ab'.repeat(32) };
      const first = cli.runWith(env, 'accounts', 'create', '--plan', 'starter', '--json');
      expect(first.code, first.err).to.equal(0);
      expect(first.err).to.contain(`chartshot: created a new, empty store: database postgres://postgres:***@${url.host}${url.pathname} (set DATABASE_URL to use another)`);
      expect(first.err).to.contain('a server using another DATABASE_URL will not know this key');
      expect(first.err).not.to.contain('hunter2');
      const again = cli.runWith(env, 'accounts', 'create', '--plan', 'starter', '--json');
      expect(again.code).to.equal(0);
      expect(again.err).to.equal('');
    } finally {
      await db.drop();
    }
  });

  it('a PostgreSQL store is named without its password', () => {
    const config = { dataDir: '/unused', databaseUrl: 'postgres://chartshot:s3cret-pw@db.internal:5432/charts?sslmode=require&password=qs-secret', redisUrl: null };
    expect(describeStore(config)).to.equal('database postgres://chartshot:***@db.internal:5432/charts');
    const notice = newStoreNotice(config, true);
    expect(notice).not.to.contain('s3cret-pw');
    expect(notice).not.to.contain('qs-secret');
    expect(notice).to.contain('a server using another DATABASE_URL will not know this key');
  });
});
