// Large configs cross CDP deflated: the same pixels as the plain JSON text, functions still
// revived, and cleaning the parsed config in place keeps every guarantee of the copy it replaced.
import { expect } from 'chai';
import { inflateRawSync } from 'node:zlib';
import { createLogger } from '../../src/log.js';
import { Renderer, type PageRequest } from '../../src/render/renderer.js';
import { DEFLATE_FROM, toWire } from '../../src/render/wire.js';
import { loadConfig } from '../../src/config.js';

function line(points: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const data = Array.from({ length: points }, (_, x) => ({ x, y: Math.round(500 + 400 * Math.sin(x / 150) + ((x * 7919) % 97)) }));
  return {
    type: 'line',
    data: { datasets: [{ label: 'Signal ✓ 信号', data, borderColor: '#10B981', pointRadius: 0, borderWidth: 1 }] },
    options: { scales: { x: { type: 'linear' } }, ...extra },
  };
}

const request = (config: Record<string, unknown>, allowFunctions = false): PageRequest => ({
  config,
  width: 600,
  height: 300,
  format: 'png',
  backgroundColor: 'white',
  allowFunctions,
  watermark: null,
});

function startPool(deflateFrom?: number): Promise<Renderer> {
  // the pool alone: no data directory
  const c = loadConfig({ LOG_LEVEL: 'silent' });
  const pool = new Renderer(
    {
      chromiumPath: c.chromiumPath,
      size: 1,
      renderTimeoutMs: 20000,
      acquireTimeoutMs: 20000,
      maxQueue: 10,
      pageMaxRenders: 1000,
      ...(deflateFrom !== undefined && { deflateFrom }),
    },
    createLogger('silent'),
  );
  return pool.start().then(() => pool);
}

describe('large configs', function () {
  this.timeout(120000);

  it('a config text from DEFLATE_FROM on crosses deflated and inflates to exactly that text; a smaller one as is', async () => {
    const big = JSON.stringify(line(20000));
    expect(big.length).to.be.greaterThan(DEFLATE_FROM);
    const wire = await toWire({ ...request({}), configJson: big });
    expect(wire).to.not.have.property('configJson');
    const packed = (wire as { configDeflated: string }).configDeflated;
    expect(packed.length).to.be.lessThan(big.length / 2);
    expect(inflateRawSync(Buffer.from(packed, 'base64')).toString('utf8')).to.equal(big);
    const small = await toWire(request({ type: 'bar', data: { datasets: [] } }));
    expect(small).to.have.property('configJson', '{"type":"bar","data":{"datasets":[]}}');
    expect(small).to.not.have.property('configDeflated');
  });

  describe('on real Chromium', () => {
    let deflating: Renderer;
    let plain: Renderer;
    before(async () => {
      [deflating, plain] = await Promise.all([startPool(), startPool(Number.POSITIVE_INFINITY)]);
    });
    after(async () => {
      await Promise.all([deflating?.close(), plain?.close()]);
    });

    it('a 20,000-point line draws the same pixels deflated as sent as JSON text', async () => {
      const req = request(line(20000));
      const a = await deflating.render(req);
      const b = await plain.render(req);
      expect(a.data.length).to.be.greaterThan(1000);
      expect(a.data).to.equal(b.data);
    });

    it('function strings of a deflated config are revived, and text fields stay text', async () => {
      const config = line(20000, {
        plugins: { title: { display: true, text: 'function () { return "N=" + 20000; }' } },
      });
      (config.data as { datasets: Array<Record<string, unknown>> }).datasets[0]!.label = 'function () { return "not run"; }';
      const a = await deflating.render(request(config, true));
      const b = await plain.render(request(config, true));
      expect(a.ranFunctions).to.equal(true);
      expect(a.data).to.equal(b.data);
      // the same chart with the title as text draws differently: the function ran
      const asText = line(20000, { plugins: { title: { display: true, text: 'function () { return "N=" + 20000; }' } } });
      (asText.data as { datasets: Array<Record<string, unknown>> }).datasets[0]!.label = 'function () { return "not run"; }';
      const c = await deflating.render(request(asText, false));
      expect(c.ranFunctions).to.equal(false);
      expect(c.data).to.not.equal(a.data);
    });

    it('caller code that replaces what the page inflates with cannot change the next large render', async () => {
      const tamper =
        'function () { Uint8Array.fromBase64 = function () { return new Uint8Array([1, 2, 3]); }; window.DecompressionStream = function () { throw new Error("x"); };' +
        ' if (window.Response) Response.prototype.text = function () { return Promise.resolve("{\\"type\\":\\"pie\\"}"); }; return "t"; }';
      const attack = await deflating.render(request(line(20000, { plugins: { title: { display: true, text: tamper } } }), true));
      expect(attack.ranFunctions).to.equal(true);
      const after = await deflating.render(request(line(20000)));
      const reference = await plain.render(request(line(20000)));
      expect(after.data).to.equal(reference.data);
    });

    it('"__proto__" keys in a deflated config change nothing in the image and pollute nothing', async () => {
      const evil = '"__proto__":{"polluted":1,"borderColor":"red"}';
      const text = JSON.stringify(line(20000)).replace('{"type":"line",', `{${evil},"type":"line",`).replace('"options":{', `"options":{${evil},`);
      expect(text.length).to.be.greaterThan(DEFLATE_FROM);
      const a = await deflating.render({ ...request({}), configJson: text });
      const clean = await deflating.render(request(line(20000)));
      expect(a.data).to.equal(clean.data);
      // a function render reads Object.prototype on the same page: nothing was put there
      const probe = await deflating.render(
        request({ type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { plugins: { title: { display: true, text: 'function () { return String(({}).polluted) + String([].polluted); }' } } } }, true),
      );
      const reference = await deflating.render(
        request({ type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { plugins: { title: { display: true, text: 'undefinedundefined' } } } }),
      );
      expect(probe.data).to.equal(reference.data);
    });
  });
});
