// The open endpoint's pure pieces: query normalisation with its error codes, the playground
// link, and the client identity the per-IP window is kept for.
import { expect } from 'chai';
import { checkRequestTarget, editState, MAX_EDIT_URL_BYTES, OPEN_LIMITS, parseOpenQuery, playgroundUrl, type OpenChartQuery } from '../../src/chart/open.js';
import { requestDigest, SERVICE_NAME } from '../../src/chart/request.js';
import { AppError } from '../../src/errors.js';
import { clientKey } from '../../src/rules/clientAddress.js';

const BAR = { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ data: [1, 2] }] } };

function failure(fn: () => unknown): { code: string; detail?: string } {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(AppError);
    return { code: (err as AppError).code, detail: (err as AppError).detail };
  }
  return { code: 'no error' };
}
const codeOf = (q: OpenChartQuery) => failure(() => parseOpenQuery(q)).code;

describe('open endpoint request (pure)', () => {
  describe('defaults and the render request', () => {
    it('c: 500x300 png on white, watermarked, never with functions', () => {
      const { render, config } = parseOpenQuery({ c: JSON.stringify(BAR) });
      expect(render).to.deep.include({ width: 500, height: 300, format: 'png', backgroundColor: 'white', allowFunctions: false, watermark: SERVICE_NAME });
      expect(config).to.deep.equal(BAR);
    });

    it('takes w, h (numbers or digit strings), format and bkg', () => {
      const { render } = parseOpenQuery({ c: JSON.stringify(BAR), w: '640', h: 200, format: 'svg', bkg: 'transparent' });
      expect(render).to.deep.include({ width: 640, height: 200, format: 'svg', backgroundColor: 'transparent' });
    });

    it('the shortcut builds a config; labels pair by position, missing ones are numbered', () => {
      const { config } = parseOpenQuery({ type: 'line', data: '3, 1.5,-2,1e2', labels: 'Mon,Tue' });
      expect(config).to.deep.equal({
        type: 'line',
        data: { labels: ['Mon', 'Tue', '3', '4'], datasets: [{ data: [3, 1.5, -2, 100] }] },
        options: { plugins: { legend: { display: false } } },
      });
      const pie = parseOpenQuery({ type: 'pie', data: '1,2', labels: 'a,b,c' }).config as { data: { labels: string[] }; options: unknown };
      expect(pie.data.labels).to.deep.equal(['a', 'b']);
      expect(pie.options).to.deep.equal({ plugins: { legend: { display: true } } });
    });

    it('equal requests give equal digests whatever the key order', () => {
      const a = parseOpenQuery({ c: '{"type":"bar","data":{"labels":["a"],"datasets":[{"data":[1]}]}}' });
      const b = parseOpenQuery({ c: '{"data":{"datasets":[{"data":[1]}],"labels":["a"]},"type":"bar"}', w: '500' });
      expect(requestDigest(a.render)).to.equal(requestDigest(b.render));
      const c = parseOpenQuery({ c: '{"data":{"datasets":[{"data":[1]}],"labels":["a"]},"type":"bar"}', w: '501' });
      expect(requestDigest(c.render)).not.to.equal(requestDigest(a.render));
    });
  });

  describe('limits and codes', () => {
    it('url_too_long above 8192 bytes of request target, not at 8192', () => {
      expect(() => checkRequestTarget('/' + 'a'.repeat(8191))).not.to.throw();
      expect(failure(() => checkRequestTarget('/' + 'a'.repeat(8192))).code).to.equal('url_too_long');
    });

    it('config_too_large above 6144 bytes (UTF-8) of c, checked before parsing', () => {
      const pad = (n: number) => `{"type":"bar","data":{"labels":["${'x'.repeat(n)}"],"datasets":[{"data":[1]}]}}`;
      const base = pad(0).length;
      expect(codeOf({ c: pad(OPEN_LIMITS.maxConfigBytes - base) })).to.equal('no error');
      expect(codeOf({ c: pad(OPEN_LIMITS.maxConfigBytes - base + 1) })).to.equal('config_too_large');
      // about 3160 characters, 6260 bytes: bytes are what count
      expect(codeOf({ c: pad(3100).replace(/x/g, 'é') })).to.equal('config_too_large');
      expect(codeOf({ c: '{' + 'x'.repeat(7000) })).to.equal('config_too_large');
    });

    const invalid: Array<[string, OpenChartQuery]> = [
      ['neither c nor type', { w: 100 }],
      ['both c and type', { c: JSON.stringify(BAR), type: 'bar', data: '1' }],
      ['c not JSON', { c: '{type: bar}' }],
      ['c not an object', { c: '[1,2]' }],
      ['c with an unknown type', { c: '{"type":"sunburst","data":{}}' }],
      ['c without a type', { c: '{"data":{"datasets":[]}}' }],
      ['c with data not an object', { c: '{"type":"bar","data":[1]}' }],
      ['shortcut type outside bar/line/pie/doughnut', { type: 'radar', data: '1,2' }],
      ['shortcut without data', { type: 'bar' }],
      ['shortcut data with a word', { type: 'bar', data: '1,two,3' }],
      ['shortcut data with an empty item', { type: 'bar', data: '1,,3' }],
      ['shortcut data Infinity', { type: 'bar', data: '1e999' }],
      ['labels without type', { labels: 'a,b' }],
      ['w 0', { c: JSON.stringify(BAR), w: 0 }],
      ['w 2001', { c: JSON.stringify(BAR), w: 2001 }],
      ['h 1.5', { c: JSON.stringify(BAR), h: '1.5' }],
      ['h not a number', { c: JSON.stringify(BAR), h: 'tall' }],
      ['format pdf', { c: JSON.stringify(BAR), format: 'pdf' }],
      ['bkg not a colour', { c: JSON.stringify(BAR), bkg: 'url(http://x)' }],
      ['a function string (gate)', { c: JSON.stringify({ ...BAR, options: { plugins: { tooltip: { callbacks: { label: 'function(c){return 1}' } } } } }) }],
      ['top-level plugins (gate)', { c: JSON.stringify({ ...BAR, plugins: [{}] }) }],
      ['a remote URL outside data (gate)', { c: JSON.stringify({ ...BAR, options: { plugins: { title: { text: 'https://evil.example/x.png' } } } }) }],
      ['a script tag in a label (gate)', { c: JSON.stringify({ type: 'bar', data: { labels: ['<script>alert(1)</script>'], datasets: [{ data: [1] }] } }) }],
    ];
    for (const [name, q] of invalid) {
      it(`invalid_config: ${name}`, () => expect(codeOf(q)).to.equal('invalid_config'));
    }

    it('at most 500 data points, over all datasets, in c and in the shortcut', () => {
      const values = (n: number) => Array.from({ length: n }, (_, i) => i % 10);
      expect(codeOf({ type: 'bar', data: values(500).join(',') })).to.equal('no error');
      expect(codeOf({ type: 'bar', data: values(501).join(',') })).to.equal('invalid_config');
      const two = (a: number, b: number) =>
        JSON.stringify({ type: 'line', data: { datasets: [{ data: values(a) }, { data: values(b) }] } });
      expect(codeOf({ c: two(250, 250) })).to.equal('no error');
      expect(codeOf({ c: two(250, 251) })).to.equal('invalid_config');
    });

    it('the gate reason is the error detail', () => {
      const f = failure(() => parseOpenQuery({ c: JSON.stringify({ ...BAR, plugins: [] }) }));
      expect(f).to.deep.equal({ code: 'invalid_config', detail: 'top-level plugins are not allowed' });
    });
  });

  describe('playground link', () => {
    it('carries the config, and w/h/format/bkg only when not the defaults', () => {
      const D = 'a'.repeat(43);
      const link = playgroundUrl('https://charts.example', parseOpenQuery({ c: JSON.stringify(BAR) }), D);
      expect(link.stored).to.equal(false);
      const plain = link.url;
      expect(plain.startsWith('https://charts.example/playground?c=')).to.equal(true);
      const u = new URL(plain);
      expect(JSON.parse(u.searchParams.get('c')!)).to.deep.equal(BAR);
      expect([...u.searchParams.keys()]).to.deep.equal(['c']);
      const full = new URL(playgroundUrl('https://x', parseOpenQuery({ c: JSON.stringify(BAR), w: 40, h: 30, format: 'svg', bkg: '#ff000080' }), D).url);
      expect(Object.fromEntries(full.searchParams)).to.deep.include({ w: '40', h: '30', format: 'svg', bkg: '#ff000080' });
      expect(plain).to.match(/^[\x21-\x7e]+$/); // a valid header value: printable ASCII only
    });

    it('a link past 1 KB becomes ?id=<digest> (stored by the service), whatever the config size', () => {
      const D = 'Ab0_-'.repeat(8) + 'xyz';
      const big = { ...BAR, options: { plugins: { title: { display: true, text: 'T'.repeat(3000) } } } };
      const req = parseOpenQuery({ c: JSON.stringify(big), w: 640 });
      const link = playgroundUrl('https://charts.example', req, D);
      expect(link).to.deep.equal({ url: `https://charts.example/playground?id=${D}`, stored: true });
      expect(editState(req)).to.deep.equal({ c: big, w: 640 });
      // just under the bound stays inline
      const small = playgroundUrl('https://charts.example', parseOpenQuery({ c: JSON.stringify({ ...BAR, options: { plugins: { title: { text: 'T'.repeat(600) } } } }) }), D);
      expect(small.stored).to.equal(false);
      expect(small.url.length).to.be.at.most(MAX_EDIT_URL_BYTES);
    });
  });

  describe('client identity', () => {
    it('IPv4 as is; IPv4-mapped IPv6 is IPv4', () => {
      expect(clientKey('203.0.113.7')).to.equal('203.0.113.7');
      expect(clientKey('::ffff:203.0.113.7')).to.equal('203.0.113.7');
    });
    it('IPv6 by /64, whatever the notation', () => {
      const k = clientKey('2001:db8:1:2:aaaa::1');
      expect(k).to.equal('2001:db8:1:2::/64');
      expect(clientKey('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).to.equal(k);
      expect(clientKey('2001:db8:1:3::1')).not.to.equal(k);
      expect(clientKey('::1')).to.equal('0:0:0:0::/64');
      expect(clientKey('fe80::1%eth0')).to.equal('fe80:0:0:0::/64');
    });
    it('a non-address is bounded', () => {
      expect(clientKey('x'.repeat(500))).to.have.length.at.most(70);
    });
  });
});
