import { expect } from 'chai';
import pg from 'pg';
import { Redis } from 'ioredis';
import { testDatabase, testRedis } from '../helpers/services.js';
describe('throwaway services', function () {
  this.timeout(60000);
  it('postgres and redis start, answer and go away', async () => {
    const db = await testDatabase();
    const c = new pg.Client({ connectionString: db.url });
    await c.connect();
    expect((await c.query('select 1 as x')).rows[0].x).to.equal(1);
    await c.end();
    await db.drop();
    const r = await testRedis();
    const cl = new Redis(r.url);
    await cl.set(r.prefix + 'a', '1');
    expect(await cl.get(r.prefix + 'a')).to.equal('1');
    cl.disconnect();
  });
});
