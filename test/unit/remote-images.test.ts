// Remote images (REMOTE_IMAGES_ALLOW) against a real local HTTP server: a listed host's image is
// fetched once and handed on as a data URL; unlisted hosts, private addresses, oversize and slow
// answers and redirects are 400s that say what to do; data URLs are checked, never fetched.
// Also the data sources and the Google Image Charts form, refused by name.
import { expect } from 'chai';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PNG } from 'pngjs';
import { RemoteImages } from '../../src/services/remoteImages.js';
import { checkConfigTextSources, checkNotImageCharts, remoteContentOf } from '../../src/chart/remoteContent.js';
import { quickChartRequest } from '../../src/chart/quickchart.js';
import { PLANS } from '../../src/rules/plans.js';
import { loadConfig } from '../../src/config.js';

function redPng(side: number, noisy = false): Buffer {
  const png = new PNG({ width: side, height: side });
  // noise does not compress: the file stays about side x side x 4 bytes
  for (let i = 0; i < png.data.length; i += 4) png.data.set([255, noisy ? (i * 7919) % 251 : 0, noisy ? (i * 104729) % 241 : 0, 255], i);
  return PNG.sync.write(png);
}

async function expect400(p: Promise<unknown>, message: RegExp): Promise<void> {
  const err = await p.then(
    () => null,
    (e: unknown) => e as { status?: number; detail?: string },
  );
  expect(err, 'refused').to.not.equal(null);
  expect(err!.status).to.equal(400);
  expect(err!.detail).to.match(message);
}

describe('remote images (REMOTE_IMAGES_ALLOW)', () => {
  const small = redPng(4);
  const big = redPng(200, true);
  let server: Server;
  let base: string;
  let hits: Record<string, number>;
  const held: ServerResponse[] = [];

  before(async () => {
    hits = {};
    server = createServer((req, res) => {
      hits[req.url!] = (hits[req.url!] ?? 0) + 1;
      if (req.url === '/red.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(small);
      if (req.url === '/big.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(big);
      if (req.url === '/moved.png') return res.writeHead(302, { location: '/red.png' }).end();
      if (req.url === '/text') return res.writeHead(200, { 'content-type': 'image/png' }).end('<html>not an image</html>');
      // /slow: headers, then nothing (held until the test ends)
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(small.subarray(0, 8));
      held.push(res);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const r of held) r.destroy();
    await new Promise((r) => server.close(r));
  });

  // tests only: the option that lets a loopback server stand in for a public host
  const loopback = (o: Partial<ConstructorParameters<typeof RemoteImages>[0]> = {}) => new RemoteImages({ allow: ['127.0.0.1'], allowPrivate: true, ...o });

  it('fetches a listed host once and hands the image on as a data URL (cached by URL)', async () => {
    const images = loopback();
    const a = await images.dataUrl(`${base}/red.png`, 'backgroundImageUrl');
    expect(a).to.equal(`data:image/png;base64,${small.toString('base64')}`);
    expect(await images.dataUrl(`${base}/red.png`, 'backgroundImageUrl')).to.equal(a);
    expect(hits['/red.png']).to.equal(1);
  });

  it('refuses hosts not listed, and every host when the list is empty, saying what to do', async () => {
    await expect400(loopback({ allow: ['images.example.com'] }).dataUrl(`${base}/red.png`, 'backgroundImageUrl'), /^backgroundImageUrl: 127\.0\.0\.1 is not in REMOTE_IMAGES_ALLOW; send the image as a data:image URL/);
    await expect400(new RemoteImages({ allow: [] }).dataUrl('https://example.com/a.png', 'backgroundImageUrl'), /remote images are off on this server \(REMOTE_IMAGES_ALLOW is empty\)/);
    await expect400(loopback().dataUrl('file:///etc/passwd', 'backgroundImageUrl'), /must be an http\(s\) URL or a data:image URL/);
  });

  it('refuses a listed host on a private address (the guard of the production setting)', async () => {
    const before = hits['/red.png'] ?? 0;
    await expect400(new RemoteImages({ allow: ['127.0.0.1'] }).dataUrl(`${base}/red.png?x`, 'backgroundImageUrl'), /127\.0\.0\.1 is loopback.*public addresses only/);
    await expect400(new RemoteImages({ allow: ['localhost'] }).dataUrl(`${base.replace('127.0.0.1', 'localhost')}/red.png`, 'backgroundImageUrl'), /loopback/);
    expect(hits['/red.png'] ?? 0).to.equal(before);
  });

  it('refuses an image over the size bound, a slow answer, a redirect and bytes that are no image', async () => {
    await expect400(loopback({ maxBytes: 1000 }).dataUrl(`${base}/big.png`, 'backgroundImageUrl'), /larger than 1000 bytes/);
    await expect400(loopback({ timeoutMs: 300 }).dataUrl(`${base}/slow`, 'backgroundImageUrl'), /no complete answer within 300 ms/);
    await expect400(loopback().dataUrl(`${base}/moved.png`, 'backgroundImageUrl'), /redirect \(302\); redirects are not followed/);
    expect(hits['/red.png'] ?? 0).to.be.at.most(1);
    await expect400(loopback().dataUrl(`${base}/text`, 'backgroundImageUrl'), /did not answer a png, jpeg, gif or webp image/);
  });

  it('fetches at most 16 different URLs at once (503 past that), and one URL once however many ask', async () => {
    for (const r of held.splice(0)) r.destroy();
    const images = loopback({ timeoutMs: 60_000 });
    const waiting = Array.from({ length: 16 }, (_, i) => images.dataUrl(`${base}/slow?${i}`, 'backgroundImageUrl').catch((e: Error) => e));
    const twin = images.dataUrl(`${base}/slow?0`, 'backgroundImageUrl').catch((e: Error) => e);
    const err = await images.dataUrl(`${base}/slow?16`, 'backgroundImageUrl').then(() => null, (e: { status?: number; detail?: string }) => e);
    expect(err?.status).to.equal(503);
    expect(err?.detail).to.match(/too many remote images being fetched at once/);
    // every held answer cut off: each fetch ends in a 400, the twin with the same one
    while (held.length < 16) await new Promise((r) => setTimeout(r, 20));
    for (const r of held.splice(0)) r.destroy();
    const ends = await Promise.all([...waiting, twin]);
    expect(ends.every((e) => (e as { status?: number }).status === 400)).to.equal(true);
    expect(ends[16]).to.equal(ends[0]);
  });

  it('REMOTE_IMAGES_ALLOW: host names only, lower-cased; unset: none; anything else stops the start', () => {
    expect(loadConfig({}).remoteImagesAllow).to.deep.equal([]);
    expect(loadConfig({ REMOTE_IMAGES_ALLOW: ' Images.Example.com, cdn.example.org. ,' }).remoteImagesAllow).to.deep.equal(['images.example.com', 'cdn.example.org']);
    for (const bad of ['https://images.example.com', 'images.example.com:443', '*.example.com', 'example.com/path']) {
      expect(() => loadConfig({ REMOTE_IMAGES_ALLOW: bad }), bad).to.throw(/REMOTE_IMAGES_ALLOW must be host names/);
    }
  });

  it('takes data URLs as they are (no list needed) when their bytes are the type they claim', async () => {
    const none = new RemoteImages({ allow: [] });
    const url = `data:image/png;base64,${small.toString('base64')}`;
    expect(await none.dataUrl(url, 'backgroundImageUrl')).to.equal(url);
    await expect400(none.dataUrl(`data:image/jpeg;base64,${small.toString('base64')}`, 'backgroundImageUrl'), /not a jpeg image/);
    await expect400(none.dataUrl('data:image/svg+xml;base64,PHN2Zy8+', 'backgroundImageUrl'), /data:image\/\(png\|jpeg\|gif\|webp\);base64/);
    // a decompression bomb: a small file whose header says 20000 x 20000 pixels
    const bomb = Buffer.from(small);
    bomb.writeUInt32BE(20000, 16);
    bomb.writeUInt32BE(20000, 20);
    await expect400(none.dataUrl(`data:image/png;base64,${bomb.toString('base64')}`, 'backgroundImageUrl'), /20000x20000 pixels; at most 16777216/);
  });

  it('refuses googleSheets and airtable data and the cht= form by name', () => {
    expect(() => remoteContentOf({ type: 'bar', data: { googleSheets: { sheetId: 'x' } } })).to.throw(/googleSheets data is not supported: chartshot never fetches chart data/);
    expect(() => remoteContentOf({ type: 'bar', data: { datasets: [] }, airtable: { baseId: 'x' } })).to.throw(/airtable data is not supported/);
    expect(() => checkConfigTextSources("{type:'bar',data:{googleSheets:{sheetId:'x'}}}")).to.throw(/googleSheets data is not supported/);
    expect(() => remoteContentOf({ type: 'line', data: { datasets: [{ data: [1], pointStyle: 'https://x.example/dot.png' }] } })).to.throw(/data\.datasets\[0\]\.pointStyle: image point styles are not supported/);
    expect(() => checkNotImageCharts({ cht: 'p3', chd: 't:1,2' })).to.throw(/Google Image Charts form \(cht=\.\.\.\) is not supported/);
    expect(remoteContentOf({ type: 'bar', options: { plugins: { backgroundImageUrl: 'https://x.example/a.png' } } })).to.deep.equal({ backgroundImageUrl: 'https://x.example/a.png' });
  });

  it("lets a keyless config's backgroundImageUrl past the open gate (the service checks it) but no other URL", () => {
    const keyless = { plan: PLANS.trial, keyed: false, watermark: null };
    const bg = { type: 'bar', data: { labels: ['a'], datasets: [{ data: [1] }] }, options: { plugins: { backgroundImageUrl: 'https://x.example/a.png' } } };
    expect(quickChartRequest({ c: JSON.stringify(bg) }, keyless).config).to.deep.equal(bg);
    const title = { ...bg, options: { plugins: { title: { display: true, text: 'https://x.example/a.png' } } } };
    expect(() => quickChartRequest({ c: JSON.stringify(title) }, keyless)).to.throw(/remote URL/);
  });
});

describe('/qr caption and center image parameters', () => {
  it("are read under QuickChart's names and bounded; a center image makes the default ecLevel H", async () => {
    const { parseQrQuery } = await import('../../src/chart/qr.js');
    const q = parseQrQuery({ text: 'x', caption: 'Hi', captionFontColor: 'ff0000', captionFontSize: '14', centerImageUrl: 'https://x.example/a.png' });
    expect(q.caption).to.deep.equal({ text: 'Hi', fontFamily: 'sans-serif', fontSize: 14, color: '#ff0000' });
    expect(q.centerImage).to.deep.equal({ url: 'https://x.example/a.png', sizeRatio: 0.3 });
    expect(q.ecLevel).to.equal('H');
    expect(() => parseQrQuery({ text: 'x', caption: 'a', captionFontFamily: 'x;}body{' })).to.throw(/captionFontFamily must be font family names/);
    expect(() => parseQrQuery({ text: 'x', centerImageUrl: 'data:image/png;base64,', centerImageSizeRatio: '2' })).to.throw(/centerImageSizeRatio must be a number above 0 and at most 1/);
  });
});
