// The CLI entry points of webhook URLs and e-mail addresses refuse what must never go out:
// CR/LF in an e-mail, webhooks to loopback/private/metadata addresses.
import { expect } from 'chai';
import { useCli } from '../helpers/cli.js';

describe('CLI: e-mail addresses and webhook URLs are checked where they enter', function () {
  this.timeout(60000);
  const { runWith: run } = useCli('chartshot-cli-outbound-');

  it('accounts create --email with CR/LF (a second RCPT TO) is refused with one clear line', () => {
    const r = run({}, 'accounts', 'create', '--plan', 'starter', '--email', 'a@example.com\r\nRCPT TO:<x@evil.example>', '--json');
    expect(r.code).to.not.equal(0);
    expect(r.err.trim().split('\n')).to.have.length(1);
    expect(r.err).to.match(/^chartshot: .*--email.*control character/);
    expect(run({}, 'accounts', 'create', '--plan', 'starter', '--email', 'ops@example.com', '--json').code).to.equal(0);
  });

  it('billing set-webhook refuses loopback, private and metadata targets unless WEBHOOK_ALLOW_PRIVATE=true', () => {
    const acct = JSON.parse(run({}, 'accounts', 'create', '--plan', 'starter', '--json').out) as { account_id: string };
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://127.0.0.1:9/hook', 'http://10.0.0.1/hook', 'ftp://example.com/']) {
      const r = run({}, 'billing', 'set-webhook', '--account', acct.account_id, '--url', url);
      expect(r.code, url).to.not.equal(0);
      expect(r.err, url).to.match(/^chartshot: /);
    }
    expect(run({}, 'billing', 'set-webhook', '--account', acct.account_id, '--url', 'https://hooks.example.com/x').code).to.equal(0);
    expect(run({ WEBHOOK_ALLOW_PRIVATE: 'true' }, 'billing', 'set-webhook', '--account', acct.account_id, '--url', 'http://127.0.0.1:9/hook').code).to.equal(0);
  });
});
