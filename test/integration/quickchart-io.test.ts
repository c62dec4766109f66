// QuickChart's output and remote content over HTTP with real Chromium: webp and jpg (content
// type, magic bytes, dimensions, and decoded again by the browser), backgroundImageUrl from a
// listed local server and from a data URL (drawn, looked at), and the 400s that name what is
// not supported (an unlisted host, googleSheets, cht=, webp on /v1).
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.js';
import { decodePng, pixel } from '../helpers/images.js';

const BAR = { type: 'bar', data: { labels: ['a', 'b'], datasets: [{ label: 'x', data: [1, 2], backgroundColor: '#36a2eb' }] }, options: { legend: { display: false } } };

/** Width and height from a WebP's VP8, VP8L or VP8X header. */
function webpSize(b: Buffer): [number, number] {
  expect(b.toString('latin1', 0, 4) + b.toString('latin1', 8, 12)).to.equal('RIFFWEBP');
  const chunk = b.toString('latin1', 12, 16);
  if (chunk === 'VP8 ') return [b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff];
  if (chunk === 'VP8L') {
    const bits = b.readUInt32LE(21);
    return [(bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1];
  }
  expect(chunk).to.equal('VP8X');
  return [b.readUIntLE(24, 3) + 1, b.readUIntLE(27, 3) + 1];
}

/** Width and height from a JPEG's first start-of-frame marker. */
function jpegSize(b: Buffer): [number, number] {
  expect([b[0], b[1], b[2]]).to.deep.equal([0xff, 0xd8, 0xff]);
  let i = 2;
  while (i < b.length) {
    const marker = b[i + 1]!;
    const len = b.readUInt16BE(i + 2);
    if (marker >= 0xc0 && marker <= 0xc2) return [b.readUInt16BE(i + 7), b.readUInt16BE(i + 5)];
    i += 2 + len;
  }
  throw new Error('no SOF marker');
}

function solidPng(rgb: [number, number, number], side = 8): Buffer {
  const png = new PNG({ width: side, height: side });
  for (let i = 0; i < png.data.length; i += 4) png.data.set([...rgb, 255], i);
  return PNG.sync.write(png);
}

describe('QuickChart output formats and remote content', function () {
  let s: TestServer;
  let acct: Credentials;
  let images: Server;
  let imageBase: string;
  let fetched = 0;

  before(async function () {
    this.timeout(60000);
    images = createServer((_req, res) => {
      fetched++;
      res.writeHead(200, { 'content-type': 'image/png' }).end(solidPng([255, 0, 0]));
    });
    await new Promise<void>((r) => images.listen(0, '127.0.0.1', r));
    imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
    // the loopback server stands in for a listed public host: tests only, never from the environment
    s = await startTestServer({ poolSize: 1, remoteImagesAllow: ['127.0.0.1'] }, { remoteImages: { allowPrivate: true } });
    acct = await s.account('starter');
  });
  after(async () => {
    await s?.stop();
    await new Promise((r) => images?.close(r));
  });

  const chart = async (body: Record<string, unknown>, path = '/chart') => {
    const res = await fetch(`${s.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': acct.api_key }, body: JSON.stringify(body) });
    return { status: res.status, type: res.headers.get('content-type'), error: res.headers.get('x-quickchart-error'), body: Buffer.from(await res.arrayBuffer()) };
  };

  it('serves webp and jpg with their content types and sizes; quality is part of the cache key; the browser decodes them again', async () => {
    const webp = await chart({ chart: BAR, w: 200, h: 100, f: 'webp' });
    expect(webp.status, webp.error ?? '').to.equal(200);
    expect(webp.type).to.equal('image/webp');
    expect(webpSize(webp.body)).to.deep.equal([400, 200]);
    const lossless = await chart({ chart: BAR, w: 200, h: 100, f: 'webp', quality: 100 });
    expect(lossless.body.equals(webp.body)).to.equal(false);
    const jpg = await chart({ chart: BAR, w: 200, h: 100, format: 'jpg', quality: 30, devicePixelRatio: 1 });
    expect(jpg.status, jpg.error ?? '').to.equal(200);
    expect(jpg.type).to.equal('image/jpeg');
    expect(jpegSize(jpg.body)).to.deep.equal([200, 100]);
    const fine = await chart({ chart: BAR, w: 200, h: 100, format: 'jpeg', quality: 95, devicePixelRatio: 1 });
    expect(fine.body.length).to.be.greaterThan(jpg.body.length);
    // decoded by Chromium: each drawn as the background of a PNG chart; a jpg has a white background
    for (const [img, type] of [[webp.body, 'webp'], [jpg.body, 'jpeg']] as const) {
      const back = await chart({ chart: { ...BAR, options: { plugins: { backgroundImageUrl: `data:image/${type};base64,${img.toString('base64')}` } } }, w: 200, h: 100, devicePixelRatio: 1 });
      expect(back.status, back.error ?? '').to.equal(200);
      // looked at: the webp or jpg as Chromium decoded it, under a chart of no colour of its own
      if (process.env.LOOK_DIR) (await import('node:fs')).writeFileSync(`${process.env.LOOK_DIR}/decoded-${type}.png`, back.body);
    }
    const corner = pixel(decodePng((await chart({ chart: { ...BAR, options: { plugins: { backgroundImageUrl: `data:image/jpeg;base64,${jpg.body.toString('base64')}` } } }, w: 200, h: 100, devicePixelRatio: 1 })).body), 1, 1);
    expect(corner.slice(0, 3).every((c) => c > 240)).to.equal(true);
    // /chart/create keeps the format: its URL serves the webp
    const created = await chart({ chart: BAR, w: 120, h: 80, f: 'webp', quality: 50 }, '/chart/create');
    expect(created.status, created.error ?? '').to.equal(200);
    const served = await fetch((JSON.parse(created.body.toString('utf8')) as { url: string }).url.replace(/^https?:\/\/[^/]+/, s.url));
    expect(served.headers.get('content-type')).to.equal('image/webp');
    expect(webpSize(Buffer.from(await served.arrayBuffer()))).to.deep.equal([240, 160]);
    const v1 = await fetch(`${s.url}/v1/chart?format=webp&width=100&height=100&chart=${encodeURIComponent(JSON.stringify(BAR))}`, { headers: { 'x-api-key': acct.api_key } });
    expect(v1.status).to.equal(400);
  });

  it('draws backgroundImageUrl from a listed host (fetched once) and from a data URL, behind the chart', async () => {
    const url = `${imageBase}/red.png`;
    const a = await chart({ chart: { ...BAR, options: { plugins: { backgroundImageUrl: url } } }, w: 200, h: 100, devicePixelRatio: 1 });
    expect(a.status, a.error ?? '').to.equal(200);
    const png = decodePng(a.body);
    expect(pixel(png, 2, 2)).to.deep.equal([255, 0, 0, 255]);
    expect(pixel(png, 198, 98)).to.deep.equal([255, 0, 0, 255]);
    const again = await chart({ chart: { ...BAR, options: { plugins: { backgroundImageUrl: url } } }, w: 201, h: 100, devicePixelRatio: 1 });
    expect(again.status).to.equal(200);
    expect(fetched).to.equal(1);
    const green = `data:image/png;base64,${solidPng([0, 128, 0]).toString('base64')}`;
    const b = await chart({ chart: { ...BAR, options: { plugins: { backgroundImageUrl: green } } }, w: 200, h: 100, devicePixelRatio: 1 });
    expect(pixel(decodePng(b.body), 2, 2)).to.deep.equal([0, 128, 0, 255]);
    if (process.env.LOOK_DIR) {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(`${process.env.LOOK_DIR}/background-url.png`, a.body);
    }
  });

  it('answers 400 with X-quickchart-error for an unlisted host, googleSheets, airtable and cht=', async () => {
    const unlisted = await chart({ chart: { ...BAR, options: { plugins: { backgroundImageUrl: 'https://images.example.com/a.png' } } } });
    expect(unlisted.status).to.equal(400);
    expect(unlisted.error).to.match(/^backgroundImageUrl: images\.example\.com is not in REMOTE_IMAGES_ALLOW/);
    const sheets = await chart({ chart: { type: 'bar', data: { googleSheets: { sheetId: 'abc' } } } });
    expect(sheets.status).to.equal(400);
    expect(sheets.error).to.match(/^googleSheets data is not supported/);
    const js = await chart({ chart: "{type:'bar',data:{airtable:{baseId:String(1)}}}" });
    expect(js.error).to.match(/^airtable data is not supported/);
    const cht = await fetch(`${s.url}/chart?cht=p3&chd=t:60,40&chs=250x100&key=${acct.api_key}`);
    expect(cht.status).to.equal(400);
    expect(cht.headers.get('x-quickchart-error')).to.match(/Google Image Charts form \(cht=\.\.\.\) is not supported/);
    // a JavaScript config's backgroundImageUrl is never fetched: the page refuses it by name
    const jsBg = await chart({ chart: `{type:'bar',data:{labels:['a'],datasets:[{data:[1]}]},options:{title:{display:true,text:(function(){return 't'})()},plugins:{backgroundImageUrl:'${imageBase}/red.png'}}}` });
    expect(jsBg.status).to.equal(400);
    expect(jsBg.error).to.match(/backgroundImageUrl is drawn only on the QuickChart routes \(\/chart\) from a JSON config/);
  });
});

describe('/qr caption and center image', function () {
  let s: TestServer;
  let key: string;
  before(async function () {
    this.timeout(60000);
    s = await startTestServer({ poolSize: 1 });
    key = (await s.account('starter')).api_key;
  });
  after(async () => s?.stop());

  it('draws the caption in a strip below the code and the center image over its middle (looked at)', async () => {
    const plain = await fetch(`${s.url}/qr?key=${key}&text=chartshot&size=200`);
    const code = decodePng(Buffer.from(await plain.arrayBuffer()));
    const blue = `data:image/png;base64,${solidPng([0, 0, 255], 20).toString('base64')}`;
    const q = new URLSearchParams({ text: 'chartshot', size: '200', ecLevel: 'M', caption: 'Scan me', captionFontSize: '20', captionFontColor: 'ff0000', centerImageUrl: blue });
    const res = await fetch(`${s.url}/qr?key=${key}&${q}`);
    expect(res.status, res.headers.get('x-quickchart-error') ?? '').to.equal(200);
    expect(res.headers.get('content-type')).to.equal('image/png');
    const body = Buffer.from(await res.arrayBuffer());
    const png = decodePng(body);
    // the code's side, plus a strip of 1.2 x 20 px of text and 10 px above and below
    expect([png.width, png.height]).to.deep.equal([code.width, code.width + 44]);
    // the code itself, module for module, outside the center image's box (60 px, centered)
    let same = 0;
    let checked = 0;
    for (let y = 0; y < code.height; y += 3) {
      for (let x = 0; x < code.width; x += 3) {
        if (x >= 66 && x < 134 && y >= 66 && y < 134) continue;
        checked++;
        if (pixel(png, x, y).join() === pixel(code, x, y).join()) same++;
      }
    }
    expect(same).to.equal(checked);
    expect(pixel(png, 100, 100)).to.deep.equal([0, 0, 255, 255]);
    // red caption pixels in the strip, none elsewhere
    let red = 0;
    for (let y = code.height; y < png.height; y++) for (let x = 0; x < png.width; x++) if (pixel(png, x, y)[0] > 200 && pixel(png, x, y)[1] < 80) red++;
    expect(red).to.be.greaterThan(30);
    if (process.env.LOOK_DIR) (await import('node:fs')).writeFileSync(`${process.env.LOOK_DIR}/qr-caption.png`, body);
    const svg = await fetch(`${s.url}/qr?key=${key}&${q}&format=svg`);
    expect(svg.status).to.equal(200);
    expect(await svg.text()).to.match(/^<svg[\s\S]*<image[\s\S]*Scan me/);
    const remote = await fetch(`${s.url}/qr?key=${key}&text=x&centerImageUrl=${encodeURIComponent('https://images.example.com/logo.png')}`);
    expect(remote.status).to.equal(400);
    expect(remote.headers.get('x-quickchart-error')).to.match(/^centerImageUrl: remote images are off on this server/);
  });
});
