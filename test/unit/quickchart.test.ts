// QuickChart's vocabulary as pure functions: aliases, versions, ratio, config text, template
// overrides, QR parameters, error images and headers.
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../../src/errors.js';
import { PLANS } from '../../src/rules/plans.js';
import {
  checkOutputPixels,
  decodeConfigText,
  parseChartjsVersion,
  parseConfigSource,
  parseDevicePixelRatio,
  quickChartRequest,
  requestedFormat,
} from '../../src/chart/quickchart.js';
import { parseTemplateOverrides, templatePatches } from '../../src/chart/templates.js';
import { pickAlias } from '../../src/chart/fieldAlias.js';
import { parseQrQuery } from '../../src/chart/qr.js';
import { errorLines, errorSvg, FIXED_ERROR_PNG } from '../../src/services/errorImages.js';
import { headerMessage } from '../../src/http/quickchartErrors.js';
import { QuickChartService, templateVariant, VARIANTS_PER_ADDRESS_PER_HOUR, VARIANTS_PER_CHART_PER_HOUR } from '../../src/services/quickchart.js';
import { renderDigest } from '../../src/chart/request.js';
import QRCode from 'qrcode';
import { encodeQrPng } from '../../src/services/qrPng.js';
import { redactUrl } from '../../src/log.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { mayRunCallerCode } from '../../src/chart/callerCode.js';
import { decodePng } from '../helpers/images.js';
import { renderRequest } from '../helpers/requests.js';

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(AppError);
    return err as AppError;
  }
  expect.fail('expected a refusal');
}

const keyed = { plan: PLANS.starter, keyed: true, watermark: null };
const keyless = { plan: PLANS.trial, keyed: false, watermark: null };
const BAR_JS = "{type:'bar',data:{labels:['a','b',],datasets:[{label:'x',data:[1,2]}]},}";

describe('QuickChart parameters', () => {
  it('v and version: 2.x selects 2, 3.x 3, 4.x 4, absent the default; anything else is a 400', () => {
    expect(parseChartjsVersion('2.9.4', 4)).to.equal(2);
    expect(parseChartjsVersion('2', 4)).to.equal(2);
    expect(parseChartjsVersion('3.9.1', 2)).to.equal(3);
    expect(parseChartjsVersion('4', 2)).to.equal(4);
    expect(parseChartjsVersion('4.4.0', 2)).to.equal(4);
    expect(parseChartjsVersion(undefined, 2)).to.equal(2);
    expect(parseChartjsVersion('', 4)).to.equal(4);
    for (const bad of ['5', 'latest', '1.0', '2.9.4; drop', '22']) expect(refusal(() => parseChartjsVersion(bad, 2)).status, bad).to.equal(400);
  });

  it('devicePixelRatio: 1 to 4, decimals allowed, absent the default', () => {
    expect(parseDevicePixelRatio(undefined, 2)).to.equal(2);
    expect(parseDevicePixelRatio('1', 2)).to.equal(1);
    expect(parseDevicePixelRatio('1.5', 2)).to.equal(1.5);
    expect(parseDevicePixelRatio(4, 1)).to.equal(4);
    for (const bad of ['0', '0.5', '5', 'NaN', '2x', -1]) expect(refusal(() => parseDevicePixelRatio(bad, 2)).message, String(bad)).to.match(/devicePixelRatio/);
  });

  it('an alias and its name: either alone, both when equal; different values are a 400', () => {
    expect(pickAlias({ w: '10' }, 'width', 'w')).to.equal('10');
    expect(pickAlias({ width: 10, w: '10' }, 'width', 'w')).to.equal(10);
    expect(refusal(() => pickAlias({ width: '10', w: '20' }, 'width', 'w')).message).to.match(/w and width/);
  });

  it('the plan caps apply to the output pixels (size x ratio)', () => {
    expect(() => checkOutputPixels(1000, 1000, 2, PLANS.starter)).to.not.throw();
    const e = refusal(() => checkOutputPixels(1500, 1000, 2, PLANS.starter));
    expect(e.code).to.equal('invalid_dimensions');
    expect(e.detail).to.match(/3000x2000/);
    expect(() => checkOutputPixels(1500, 1000, 2, PLANS.growth)).to.not.throw();
  });

  it('encoding=base64 decodes the config; other encodings and bad base64 are refused', () => {
    expect(decodeConfigText(Buffer.from(BAR_JS).toString('base64'), 'base64')).to.equal(BAR_JS);
    expect(decodeConfigText('x', undefined)).to.equal('x');
    expect(refusal(() => decodeConfigText('%%%', 'base64')).status).to.equal(400);
    expect(refusal(() => decodeConfigText('x', 'hex')).status).to.equal(400);
  });

  it("the error image's format is read from f or format, png otherwise", () => {
    expect(requestedFormat({ f: 'SVG' })).to.equal('svg');
    expect(requestedFormat({ format: 'pdf' })).to.equal('pdf');
    expect(requestedFormat({ f: 'gif' })).to.equal('png');
  });

  it("a /chart request gets QuickChart's defaults: 500x300 at ratio 2, Chart.js 2, transparent", () => {
    const req = quickChartRequest({ c: BAR_JS }, keyed);
    expect(req).to.deep.include({ width: 500, height: 300, devicePixelRatio: 2, chartjs: 2, backgroundColor: null, format: 'png', allowFunctions: true });
    expect(req.configJs).to.equal(undefined);
    expect(req.config).to.deep.equal({ type: 'bar', data: { labels: ['a', 'b'], datasets: [{ label: 'x', data: [1, 2] }] } });
    // an SVG keeps its CSS size whatever the ratio: only PNG and PDF pixels are multiplied
    expect(quickChartRequest({ c: BAR_JS, w: '1500', h: '1000', f: 'svg' }, keyed).width).to.equal(1500);
    expect(refusal(() => quickChartRequest({ c: BAR_JS, w: '1500', h: '1000' }, keyed)).code).to.equal('invalid_dimensions');
    const other = quickChartRequest({ chart: BAR_JS, w: '200', height: 100, bkg: 'white', f: 'SVG', v: '4.4.1', devicePixelRatio: '1' }, keyed);
    expect(other).to.deep.include({ width: 200, height: 100, backgroundColor: 'white', format: 'svg', chartjs: 4, devicePixelRatio: 1 });
  });
});

describe('QuickChart config text', () => {
  it('JSON first, then JSON5-style data (unquoted keys, single quotes, trailing commas, comments)', () => {
    expect(parseConfigSource('{"type":"bar"}', false).config).to.deep.equal({ type: 'bar' });
    expect(parseConfigSource("{type:'line', /* note */ data:{},}", false).config).to.deep.equal({ type: 'line', data: {} });
  });

  it('with a key, text that is not data becomes page-only JavaScript; it must be an object literal', () => {
    const js = "{type:'bar',options:{scales:{y:{ticks:{callback:function(v){return v+'%'}}}}}}";
    expect(parseConfigSource(js, true)).to.deep.equal({ configJs: js });
    expect(refusal(() => parseConfigSource("(() => ({type:'bar'}))()", true)).message).to.match(/object literal/);
  });

  it("a config ending in ';' (as pasted from code) is taken, as QuickChart takes it: data and JavaScript", () => {
    expect(parseConfigSource('{"type":"bar"};', false).config).to.deep.equal({ type: 'bar' });
    expect(parseConfigSource("{type:'line'} ;\n ;; ", false).config).to.deep.equal({ type: 'line' });
    const js = "{type:'bar',options:{plugins:{datalabels:{formatter:function(v){return v+';'}}}}}";
    expect(parseConfigSource(`${js};`, true)).to.deep.equal({ configJs: js });
    // only after the value: a statement before it is still not an object literal
    expect(refusal(() => parseConfigSource("x = 1; {type:'bar'};", true)).message).to.match(/object literal/);
  });

  it('without a key: a function, a getter, a call or any other code is refused', () => {
    for (const text of [
      "{type:'bar',options:{x:function(){return 1}}}",
      "{type:'bar',options:{x:()=>1}}",
      "{type:'bar', get data(){ return {} }}",
      "{type:'bar',data:require('fs')}",
      "{type:'bar',data:{labels:[1+1]}}",
      "{type:`bar`}",
    ]) {
      expect(refusal(() => parseConfigSource(text, false)).status, text).to.equal(400);
    }
  });

  it('__proto__ and constructor in a literal stay own data keys: nothing is polluted', () => {
    const { config } = parseConfigSource("{__proto__:{polluted:1},constructor:{prototype:{polluted:1}},type:'bar'}", false);
    expect(Object.getPrototypeOf(config)).to.equal(Object.prototype);
    expect(Object.keys(config!)).to.include.members(['__proto__', 'constructor', 'type']);
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    // keyless, the security gate then refuses such keys outright
    expect(refusal(() => quickChartRequest({ c: "{type:'bar',data:{datasets:[]},__proto__:{x:1}}" }, keyless)).status).to.equal(400);
  });

  it('a deeply nested literal is refused before anything walks it, even with brackets hidden in quotes', () => {
    const deep = `{a:${'['.repeat(5000)}${']'.repeat(5000)}}`;
    expect(refusal(() => parseConfigSource(deep, false)).message).to.match(/nests deeper/);
    // a double quote inside a single-quoted string hides the brackets from the text scan
    const hidden = `{a:'"', b:${'['.repeat(200)}${']'.repeat(200)}, c:'"'}`;
    expect(refusal(() => parseConfigSource(hidden, false)).message).to.match(/nests deeper/);
  });

  it('a huge flat literal parses as data (its size is bounded by the body and URL limits, not here)', () => {
    const big = `{type:'line',data:{datasets:[{data:[${Array.from({ length: 100_000 }, (_, i) => i).join(',')}]}]}}`;
    const { config } = parseConfigSource(big, false);
    expect(((config!.data as { datasets: Array<{ data: number[] }> }).datasets[0]!.data).length).to.equal(100_000);
  });

  it('text that would run code in Node is never evaluated here, with or without a key', () => {
    const marker = join(tmpdir(), `chartshot-node-eval-${process.pid}-${Date.now()}`);
    const text = `{type:'bar',data:(require('fs').writeFileSync(${JSON.stringify(marker)},'x'),{})}`;
    expect(parseConfigSource(text, true)).to.deep.equal({ configJs: text });
    expect(refusal(() => parseConfigSource(text, false)).status).to.equal(400);
    expect(quickChartRequest({ c: text }, keyed).configJs).to.equal(text);
    expect(existsSync(marker), 'nothing ran').to.equal(false);
  });

  it('keyless data configs meet the security gate and the cost caps', () => {
    expect(refusal(() => quickChartRequest({ c: "{type:'bar',data:{datasets:[]},options:{title:{text:'function(){return 1}'}}}" }, keyless)).status).to.equal(400);
    expect(refusal(() => quickChartRequest({ c: "{type:'bar',data:{datasets:[]},plugins:[{}]}" }, keyless)).status).to.equal(400);
    expect(quickChartRequest({ c: "{type:'bar',data:{labels:['a'],datasets:[{data:[1]}]}}" }, keyless).allowFunctions).to.equal(false);
  });
});

describe('QuickChart template overrides', () => {
  const base = { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ label: 'x', data: [1, 2] }] }, options: {} };

  it('parses title, labels, dataN, labelN, backgroundColorN, borderColorN, size and background; none gives null', () => {
    expect(parseTemplateOverrides({ ref: 'x' })).to.equal(null);
    const o = parseTemplateOverrides({ title: 'T', labels: 'p,q', data1: '3, 4', label2: 'y', backgroundColor1: 'red', borderColor2: '#00ff00', width: '300', backgroundColor: 'white' })!;
    expect(o.config).to.deep.equal({ title: 'T', labels: ['p', 'q'], datasets: { '0': { data: [3, 4], backgroundColor: 'red' }, '1': { label: 'y', borderColor: '#00ff00' } } });
    expect(o).to.deep.include({ width: '300', backgroundColor: 'white' });
  });

  it('refuses a non-number value, a colour that is not one, a dataset past 50 and too many values', () => {
    expect(refusal(() => parseTemplateOverrides({ data1: '1,x' })).message).to.match(/data1 item 2/);
    expect(refusal(() => parseTemplateOverrides({ backgroundColor1: 'url(x)' })).status).to.equal(400);
    expect(refusal(() => parseTemplateOverrides({ data51: '1' })).status).to.equal(400);
    expect(refusal(() => parseTemplateOverrides({ data1: Array(1001).fill(1).join(',') })).status).to.equal(400);
  });

  it('overrides become text patches; the title goes where each Chart.js version reads it', () => {
    const o = parseTemplateOverrides({ title: 'T', labels: 'p,q', data1: '5,6', label2: 'y' })!.config!;
    expect(templatePatches(o, 4)).to.deep.equal([
      { path: ['data', 'labels'], value: ['p', 'q'] },
      { path: ['data', 'datasets', 0, 'data'], value: [5, 6] },
      { path: ['data', 'datasets', 1, 'label'], value: 'y' },
      { path: ['options', 'plugins', 'title', 'display'], value: true },
      { path: ['options', 'plugins', 'title', 'text'], value: 'T' },
    ]);
    expect(templatePatches(o, 2).slice(-1)).to.deep.equal([{ path: ['options', 'title', 'text'], value: 'T' }]);
  });

  it('a variant carries its overrides as patches beside the stored config, which stays as stored (data or JavaScript)', () => {
    const js = renderRequest({ config: {}, configJs: "{type:'bar'}" });
    const v = templateVariant(js, parseTemplateOverrides({ title: '(c)=>{return 1}' })!, PLANS.starter);
    expect(v.configJs).to.equal("{type:'bar'}");
    expect(v.textPatches).to.deep.include({ path: ['options', 'plugins', 'title', 'text'], value: '(c)=>{return 1}' });
    expect(renderDigest(v)).to.not.equal(renderDigest(js));
  });

  it("a variant keeps the stored request's version and ratio; its size meets the owner's plan on output pixels", () => {
    const stored = renderRequest({ config: base, chartjs: 2, devicePixelRatio: 2, width: 500, height: 300 });
    const v = templateVariant(stored, parseTemplateOverrides({ width: '800', title: 'T' })!, PLANS.starter);
    expect(v).to.deep.include({ width: 800, height: 300, chartjs: 2, devicePixelRatio: 2 });
    expect(v.textPatches).to.deep.include({ path: ['options', 'title', 'text'], value: 'T' });
    expect(v.config).to.deep.equal(base);
    expect(refusal(() => templateVariant(stored, parseTemplateOverrides({ width: '1500' })!, PLANS.starter)).code).to.equal('invalid_dimensions');
  });
});

describe('stored JavaScript configs', () => {
  it('count as caller code as a whole, so a revoked key never runs them again', () => {
    expect(mayRunCallerCode(renderRequest({ config: {}, configJs: "{type:'bar'}" }))).to.equal(true);
    expect(mayRunCallerCode(renderRequest({ config: {}, configJs: "{type:'bar'}", allowFunctions: false }))).to.equal(false);
  });
});

describe('template variants', () => {
  function service(windows: Record<string, number>, limits: { client?: number; chart?: number } = {}) {
    const calls: string[] = [];
    const rec = { id: 'A'.repeat(22), accountId: 'acct_1', keyId: 'key_1', request: renderRequest(), digest: 'd', createdAt: 0 };
    const svc = new QuickChartService({
      charts: { generate: async () => (calls.push('generate'), null as never) },
      shortCharts: { create: async () => null as never, serve: async () => (calls.push('serve'), null as never) },
      open: { renderPrepared: async () => null as never, storedImage: async () => null },
      publicBaseUrl: 'http://x',
      store: {
        charts: { find: async () => rec } as never,
        accounts: { find: async () => ({ id: 'acct_1', plan: 'trial', status: 'active' }) } as never,
        keys: { find: async () => ({ id: 'key_1', revokedAt: null, expiresAt: null, kind: 'trial' }) } as never,
      },
      cache: { get: async () => null, put: async (_k: string, body: Buffer) => ({ body }) } as never,
      metrics: { hit: () => {}, rendered: () => {} },
      renderer: { render: async () => (calls.push('render'), { body: Buffer.from('x'), contentType: 'image/png', renderMs: 1 }) as never },
      windows: {
        take: async (client: string, _now: number, _ms: number, limit: number) => {
          const kind = client.startsWith('variant-client:') ? 'client' : 'chart';
          windows[client] = (windows[client] ?? 0) + 1;
          const cap = Math.min(limit, limits[kind] ?? limit);
          return windows[client]! > cap ? { allowed: false, used: cap, retryAfterMs: 1000 } : { allowed: true, used: windows[client]!, retryAfterMs: 0 };
        },
        purge: async () => 0,
      },
      clock: { now: () => 0 } as never,
    });
    return { svc, calls, rec };
  }

  it("a new variant is drawn without a generation: it passes windows per address and per chart, never the owner's limits", async () => {
    const windows: Record<string, number> = {};
    const { svc, calls, rec } = service(windows);
    await svc.renderTemplate(rec.id, { title: 'x' }, '203.0.113.9');
    expect(calls).to.deep.equal(['render']);
    expect(Object.keys(windows).sort()).to.deep.equal([`variant-chart:${rec.id}`, 'variant-client:203.0.113.9']);
    await svc.renderTemplate(rec.id, { ref: 'x' }, '203.0.113.9');
    expect(calls).to.deep.equal(['render', 'serve']);
  });

  it(`an address past ${VARIANTS_PER_ADDRESS_PER_HOUR} new variants an hour, or a chart past ${VARIANTS_PER_CHART_PER_HOUR}, gets 429 rate_limited and nothing is drawn`, async () => {
    for (const limits of [{ client: 0 }, { chart: 0 }]) {
      const { svc, calls, rec } = service({}, limits);
      const err = await svc.renderTemplate(rec.id, { title: 'x' }, '203.0.113.9').catch((e: unknown) => e);
      expect((err as AppError).code).to.equal('rate_limited');
      expect((err as AppError).status).to.equal(429);
      expect(calls).to.deep.equal([]);
    }
  });
});

describe('QUICKCHART_ANONYMOUS', () => {
  it('is off by default, on with true, and a bad value stops the start', () => {
    expect(loadConfig({}).quickchartAnonymous).to.equal(false);
    expect(loadConfig({ QUICKCHART_ANONYMOUS: 'true' }).quickchartAnonymous).to.equal(true);
    expect(() => loadConfig({ QUICKCHART_ANONYMOUS: 'maybe' })).to.throw(ConfigError, /QUICKCHART_ANONYMOUS/);
  });
});

describe('QR parameters', () => {
  it("QuickChart's defaults: size 150, margin 4, ecLevel M, black on white, png", () => {
    expect(parseQrQuery({ text: 'hi' })).to.deep.equal({ text: 'hi', format: 'png', size: 150, margin: 4, ecLevel: 'M', dark: '#000000', light: '#ffffff' });
    expect(parseQrQuery({ text: 'hi', dark: 'f00', light: '#00ff0080', ecLevel: 'h', format: 'svg', size: '300', margin: '0' })).to.deep.include({
      dark: '#ff0000',
      light: '#00ff0080',
      ecLevel: 'H',
      format: 'svg',
      size: 300,
      margin: 0,
    });
  });

  it('bounded: text, size and margin; bad colours, levels and formats are 400', () => {
    for (const q of [{}, { text: '' }, { text: 'x'.repeat(2049) }, { text: 'x', size: '1001' }, { text: 'x', size: '0' }, { text: 'x', margin: '51' }, { text: 'x', ecLevel: 'X' }, { text: 'x', dark: 'red' }, { text: 'x', format: 'gif' }]) {
      expect(refusal(() => parseQrQuery(q)).status, JSON.stringify(q).slice(0, 60)).to.equal(400);
    }
  });
});

describe('QuickChart error answers', () => {
  it('the header is printable ASCII without line breaks, bounded', () => {
    expect(headerMessage('bad\r\nX-Evil: 1 ✓ é')).to.equal('badX-Evil: 1  e');
    expect(headerMessage('x'.repeat(1000))).to.have.length(300);
  });

  it('the message is cut into at most six short lines; the SVG escapes it', () => {
    expect(errorLines('short')).to.deep.equal(['Chart error: short']);
    const lines = errorLines('word '.repeat(200));
    expect(lines).to.have.length(6);
    for (const l of lines) expect(l.length).to.be.at.most(70);
    const svg = errorSvg('<script>alert(1)</script> & "q"').toString('utf8');
    expect(svg).to.not.include('<script>');
    expect(svg).to.include('&#60;script&#62;');
  });

  it('the fixed fallback image is a valid 120x20 PNG', () => {
    const png = decodePng(FIXED_ERROR_PNG);
    expect([png.width, png.height]).to.deep.equal([120, 20]);
  });
});

describe('QR codes as 1-bit PNGs', () => {
  it("are pixel for pixel what the qrcode package's PNG renderer draws (sizes, margins, colours with alpha)", async () => {
    const cases = [
      ['hi', 150, 4, '#000000', '#ffffff', 'M'],
      ['https://example.com/x', 1000, 4, '#ff0000', '#00ff0080', 'H'],
      ['x', 10, 0, '#000000', '#ffffff', 'L'],
      ['abc'.repeat(100), 333, 7, '#123456', '#fedcba', 'Q'],
    ] as const;
    for (const [text, width, margin, dark, light, ec] of cases) {
      const theirs = decodePng(await QRCode.toBuffer(text, { type: 'png', width, margin, errorCorrectionLevel: ec, color: { dark, light } }));
      const ours = decodePng(await encodeQrPng(QRCode.create(text, { errorCorrectionLevel: ec }).modules, { width, margin, dark, light }));
      expect([ours.width, ours.height], text).to.deep.equal([theirs.width, theirs.height]);
      expect(Buffer.compare(Buffer.from(ours.data), Buffer.from(theirs.data)), `${text} at ${width}`).to.equal(0);
    }
  });
});

describe('redactUrl', () => {
  it('redacts key= (the QuickChart clients\' parameter) beside api_key and sig, but not names that end in key', () => {
    expect(redactUrl('/chart?c=%7B%7D&key=live_abc123&monkey=banana&api_key=x')).to.equal('/chart?c=%7B%7D&key=[redacted]&monkey=banana&api_key=[redacted]');
    expect(redactUrl('/chart?KEY=live_abc')).to.equal('/chart?KEY=[redacted]');
  });
});
