// Pure checks behind outbound requests: which addresses a webhook may reach, which e-mail
// addresses may be stored and written into SMTP.
import { expect } from 'chai';
import { refusedAddress } from '../../src/rules/outboundAddresses.js';
import { emailProblem } from '../../src/rules/email.js';
import { checkTargetUrl, RefusedTarget } from '../../src/services/outboundHttp.js';

describe('refusedAddress: public unicast only', () => {
  it('refuses loopback, private, link-local/metadata, CGNAT, 0/8, multicast, broadcast and their IPv6 spellings', () => {
    for (const a of [
      '127.0.0.1', '127.255.255.254', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '100.127.255.255',
      '0.0.0.0', '0.1.2.3', '224.0.0.1', '239.255.255.250', '255.255.255.255', '240.0.0.1', '192.0.2.1', '198.18.0.1',
      '::', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:a9fe:a9fe', '::127.0.0.1', '::ffff:0:10.0.0.1', '64:ff9b::a9fe:a9fe', '2002:0a00:0001::1',
      'fc00::1', 'fd12:3456::1', 'fe80::1', 'febf::1', 'ff02::1', '2001:db8::1', 'fe80::1%eth0', '[::1]', 'not-an-ip',
    ]) {
      expect(refusedAddress(a), a).to.be.a('string');
    }
    expect(refusedAddress('169.254.169.254')).to.match(/metadata/);
  });

  it('accepts public addresses, also IPv4-mapped', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '11.0.0.1', '::ffff:8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001::200e', '[2606:4700::1]']) {
      expect(refusedAddress(a), a).to.equal(null);
    }
  });

  it('checkTargetUrl: http(s) only, no credentials, literal private hosts refused unless allowed', () => {
    expect(() => checkTargetUrl('gopher://x.example/', true)).to.throw(RefusedTarget);
    expect(() => checkTargetUrl('http://u:p@x.example/', false)).to.throw(RefusedTarget);
    expect(() => checkTargetUrl('http://[::1]:9/', false)).to.throw(RefusedTarget, /loopback/);
    expect(checkTargetUrl('http://[::1]:9/', true).port).to.equal('9');
    expect(checkTargetUrl('https://hooks.example.com/x', false).hostname).to.equal('hooks.example.com');
  });
});

describe('emailProblem: a plain addr-spec, bounded, no control characters', () => {
  it('accepts ordinary addresses', () => {
    for (const e of ['owner@example.com', 'first.last+tag@mail.example.co.uk', "o'neil@xn--bcher-kva.example"]) expect(emailProblem(e), e).to.equal(null);
  });
  it('refuses CR/LF and other controls, display names, brackets, missing parts and over-long addresses', () => {
    for (const e of ['a@example.com\r\nRCPT TO:<b@evil.example>', 'a@example.com\n', 'a\u0000@example.com', 'a@exa\tmple.com', 'Name <a@example.com>', '<a@example.com>', 'a@', '@example.com', 'a@localhost', 'a..b@example.com', 'a b@example.com', `${'a'.repeat(65)}@example.com`, `a@${'b'.repeat(250)}.com`]) {
      expect(emailProblem(e), JSON.stringify(e)).to.be.a('string');
    }
    expect(emailProblem('a@example.com\r\nX')).to.match(/control character/);
  });
});
