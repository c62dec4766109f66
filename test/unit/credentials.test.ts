import { expect } from 'chai';
import { hashSecret, hmacHex, keyKindOf, newApiKey, safeEqualHex, signingSecretFor } from '../../src/services/credentials.js';
import { signQuery, verifySignedQuery } from '../../src/services/signing.js';
import { AppError } from '../../src/errors.js';
import { loadConfig, ConfigError } from '../../src/config.js';

describe('credentials', () => {
  it('keys carry their kind prefix and are unique', () => {
    expect(newApiKey('live')).to.match(/^live_[A-Za-z0-9_-]{32}$/);
    expect(newApiKey('trial')).to.match(/^trial_/);
    expect(newApiKey('test')).to.match(/^pk_test_/);
    expect(newApiKey('live')).not.to.equal(newApiKey('live'));
    expect(keyKindOf('pk_test_x')).to.equal('test');
    expect(keyKindOf('sk_x')).to.equal(null);
  });

  it('hashes are stable, hex, and not the secret', () => {
    const k = newApiKey('live');
    expect(hashSecret(k)).to.equal(hashSecret(k)).and.match(/^[0-9a-f]{64}$/).and.not.contain(k);
  });

  it('signing secrets derive from the master key and key id', () => {
    const m1 = Buffer.alloc(32, 1);
    const m2 = Buffer.alloc(32, 2);
    expect(signingSecretFor(m1, 'key_a')).to.equal(signingSecretFor(m1, 'key_a'));
    expect(signingSecretFor(m1, 'key_a')).not.to.equal(signingSecretFor(m1, 'key_b'));
    expect(signingSecretFor(m1, 'key_a')).not.to.equal(signingSecretFor(m2, 'key_a'));
  });

  it('safeEqualHex compares exactly', () => {
    expect(safeEqualHex('ab', 'ab')).to.equal(true);
    expect(safeEqualHex('ab', 'ac')).to.equal(false);
    expect(safeEqualHex('ab', 'abc')).to.equal(false);
  });
});

describe('signed queries', () => {
  const secret = 'sk_test_secret';
  const now = 1_800_000_000_000;
  const resolve = async () => ({ signingSecret: secret });
  const code = async (p: Promise<unknown>) => p.then(() => 'ok', (e: AppError) => e.code);

  it('a query signed by signQuery verifies; sig covers exactly the text before &sig=', async () => {
    const q = signQuery({ chart: '{"type":"bar"}', width: '100', height: '50' }, 'key_1', secret, now / 1000 + 60);
    expect(await code(verifySignedQuery(q, now, resolve))).to.equal('ok');
    const [signed, sig] = q.split('&sig=');
    expect(sig).to.equal(hmacHex(secret, signed!));
  });

  it('tampering with any parameter, the signature, or the order fails', async () => {
    const q = signQuery({ chart: '{"type":"bar"}', width: '100', height: '50', format: 'png' }, 'key_1', secret, now / 1000 + 60);
    const variants = [
      q.replace('width=100', 'width=101'),
      q.replace('height=50', 'height=5'),
      q.replace('format=png', 'format=svg'),
      q.replace('key_id=key_1', 'key_id=key_2'),
      q.replace(/exp=\d+/, `exp=${now / 1000 + 61}`),
      q.replace(/sig=(.)/, (_m, c: string) => `sig=${c === 'a' ? 'b' : 'a'}`),
      q + '&x=1',
      'x=1&' + q,
    ];
    for (const v of variants) expect(await code(verifySignedQuery(v, now, resolve)), v).to.equal('unauthorized');
  });

  it('expired -> unauthorized; more than a year ahead -> invalid_input', async () => {
    const past = signQuery({ width: '1' }, 'key_1', secret, now / 1000 - 1);
    expect(await code(verifySignedQuery(past, now, resolve))).to.equal('unauthorized');
    const far = signQuery({ width: '1' }, 'key_1', secret, now / 1000 + 2 * 365 * 86400);
    expect(await code(verifySignedQuery(far, now, resolve))).to.equal('invalid_input');
  });
});

describe('config', () => {
  it('defaults: the documented setting values', () => {
    const c = loadConfig({});
    expect(c.port).to.equal(8080);
    expect(c.host).to.equal('0.0.0.0');
    expect(c.publicBaseUrl).to.equal('http://localhost:8080');
    expect(c.renderTimeoutMs).to.equal(10000);
    expect(c.trustProxy).to.equal(false);
    expect(c.openRendersPerHour).to.equal(60);
    expect(c.logLevel).to.equal('info');
    expect(Object.isFrozen(c)).to.equal(true);
  });

  it('refuses bad values with a message naming the variable', () => {
    for (const [k, v] of [['PORT', 'eighty'], ['POOL_SIZE', '0'], ['TRUST_PROXY', 'maybe'], ['LOG_LEVEL', 'loud'], ['PUBLIC_BASE_URL', 'ftp://x'], ['RENDER_TIMEOUT_MS', '-1']]) {
      expect(() => loadConfig({ [k!]: v }), k).to.throw(ConfigError, k!);
    }
  });
});
