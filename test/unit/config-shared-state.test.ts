// DATABASE_URL, REDIS_URL and MASTER_KEY: parsed, validated, and the key required with a database.
import { expect } from 'chai';
import { loadConfig, ConfigError } from '../../src/config.js';
import { masterKeyOf } from '../../src/store/open.js';

const KEY = 'ab'.repeat(32);

describe('config for several instances', () => {
  it('unset: SQLite in DATA_DIR, no Redis, the key from DATA_DIR', () => {
    const c = loadConfig({});
    expect(c.databaseUrl).to.equal(null);
    expect(c.redisUrl).to.equal(null);
    expect(c.masterKey).to.equal(null);
  });

  it('reads the URLs and the hex key', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/chartshot', REDIS_URL: 'redis://cache:6379', MASTER_KEY: KEY });
    expect(c.databaseUrl).to.equal('postgres://u:p@db:5432/chartshot');
    expect(c.redisUrl).to.equal('redis://cache:6379');
    expect(c.masterKey!.equals(Buffer.from(KEY, 'hex'))).to.equal(true);
    expect(masterKeyOf(c).equals(Buffer.from(KEY, 'hex'))).to.equal(true);
  });

  it('a database without MASTER_KEY refuses to start, naming the variable', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/chartshot' })).to.throw(ConfigError, 'MASTER_KEY');
  });

  it('refuses malformed values without echoing them (a URL may carry a password)', () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ DATABASE_URL: 'mysql://u:hunter2@db/x', MASTER_KEY: KEY }, 'DATABASE_URL'],
      [{ DATABASE_URL: 'not a url hunter2', MASTER_KEY: KEY }, 'DATABASE_URL'],
      [{ REDIS_URL: 'http://u:hunter2@cache' }, 'REDIS_URL'],
      [{ MASTER_KEY: 'abc' }, 'MASTER_KEY'],
      [{ MASTER_KEY: 'zz'.repeat(32) }, 'MASTER_KEY'],
      [{ MASTER_KEY: 'ab'.repeat(16) }, 'MASTER_KEY'],
    ];
    for (const [env, name] of cases) {
      let err: unknown;
      try {
        loadConfig(env);
      } catch (e) {
        err = e;
      }
      expect(err, name).to.be.instanceOf(ConfigError);
      expect((err as Error).message).to.contain(name);
      expect((err as Error).message).to.not.contain('hunter2');
    }
  });
});
