// The authentication cache against a real server: a key revoked by another process sharing
// DATA_DIR (the CLI's own SQLite connection) is refused on the very next request.
import { expect } from 'chai';
import { BAR, post, sharedServer, type TestServer } from '../helpers/server.js';
import { createSqliteStore } from '../../src/store/sqlite/index.js';
import { AccountService } from '../../src/services/accounts.js';
import { loadMasterKey } from '../../src/store/masterKey.js';
import { apiKey } from '../helpers/client.js';

describe('API keys revoked elsewhere', function () {
  let s: TestServer;
  before(async () => (s = await sharedServer()));

  it('a key revoked by another process is refused on the next request', async () => {
    const acct = await s.account('starter');
    const body = { chart: BAR, width: 60, height: 40 };
    expect((await post(s.url, '/v1/chart', body, apiKey(acct.api_key))).status).to.equal(200);
    expect((await post(s.url, '/v1/chart', body, apiKey(acct.api_key))).status).to.equal(200);
    const cli = createSqliteStore(s.config.dataDir);
    try {
      expect(await new AccountService(cli, loadMasterKey(s.config.dataDir)).revokeKey(acct.key_id)).to.equal(true);
    } finally {
      await cli.close();
    }
    const res = await post(s.url, '/v1/chart', body, apiKey(acct.api_key));
    expect(res.status).to.equal(401);
  });
});
