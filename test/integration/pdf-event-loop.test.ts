// Nothing heavy on Node's event loop: a PDF is made in a worker thread (render/pdf.ts), so GET
// /v1/status keeps answering while an 8000x8000 PDF is made (made with pdf-lib on the main thread
// it took 5.3 s of CPU while /v1/status waited 6-20 s: failed before). The PDF still opens (pdf-lib
// loads it) and shows the PNG Chromium drew, pixel for pixel. A signed URL fetched again is served
// from a short cache (before, every GET rendered and converted again: failed before), and a
// revoked or expired one is refused although its image is held.
import { createHmac } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { expect } from 'chai';
import { PNG } from 'pngjs';
import { PDFDict, PDFDocument, PDFName, PDFNumber, PDFRawStream, PDFStream } from 'pdf-lib';
import { startTestServer, type Credentials, type TestServer } from '../helpers/server.js';
import { apiKey, bytes, post } from '../helpers/client.js';
import { FakeClock } from '../helpers/clock.js';

const CHART = {
  type: 'line',
  data: { labels: Array.from({ length: 40 }, (_, i) => `L${i}`), datasets: [{ label: 'a', data: Array.from({ length: 40 }, (_, i) => Math.sin(i / 4) * 10), fill: true, backgroundColor: 'rgba(59,130,246,0.4)' }] },
};

/** Signs independently of src/: HMAC-SHA256 hex over the query string exactly as sent. */
function signed(params: Array<[string, string]>, secret: string): string {
  const q = new URLSearchParams(params).toString();
  return `${q}&sig=${createHmac('sha256', secret).update(q).digest('hex')}`;
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** An image XObject's pixels: its FlateDecode stream with PNG predictors is a PNG's IDAT, so it is
 *  wrapped as a PNG and decoded by pngjs (independently of src/). */
function pixelsOf(stream: PDFRawStream): { width: number; height: number; channels: number; data: Buffer } {
  const num = (k: string) => stream.dict.lookup(PDFName.of(k), PDFNumber).asNumber();
  const [width, height] = [num('Width'), num('Height')];
  const parms = stream.dict.lookup(PDFName.of('DecodeParms'), PDFDict);
  expect(parms.lookup(PDFName.of('Predictor'), PDFNumber).asNumber()).to.equal(15);
  const channels = parms.lookup(PDFName.of('Colors'), PDFNumber).asNumber();
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = channels === 3 ? 2 : 0;
  const file = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', Buffer.from(stream.contents)), chunk('IEND', Buffer.alloc(0))]);
  return { width, height, channels, data: PNG.sync.read(file).data };
}

describe('PDFs: made off the event loop; signed URLs served again from a short cache', function () {
  this.timeout(300000);
  const clock = new FakeClock(Date.now());
  let s: TestServer;
  let acct: Credentials;
  before(async () => {
    s = await startTestServer({ poolSize: 1, renderTimeoutMs: 120000, acquireTimeoutMs: 120000 }, { clock });
    acct = await s.account('enterprise');
  });
  after(async () => s?.stop());

  const render = (format: string, width: number, height: number) => post(s.url, '/v1/chart', { chart: CHART, width, height, format }, apiKey(acct.api_key));

  it('GET /v1/status answers within 200 ms while an 8000x8000 PDF is made; the PDF is one page of that size', async () => {
    const made = s.deps.pdf.counters.made;
    let done = false;
    const pdf = render('pdf', 8000, 8000)
      .then(async (r) => ({ status: r.status, body: await bytes(r) }))
      .finally(() => (done = true));
    // /v1/status asked again and again while the PDF is being made (the worker has it)
    const during: number[] = [];
    while (!done) {
      const making = s.deps.pdf.stats().running > 0;
      const t = performance.now();
      const r = await fetch(`${s.url}/v1/status`);
      await r.arrayBuffer();
      const ms = performance.now() - t;
      expect(r.status).to.equal(200);
      if (making && s.deps.pdf.stats().running > 0) during.push(ms);
      await new Promise((res) => setTimeout(res, 20));
    }
    const res = await pdf;
    expect(res.status, res.body.toString('utf8').slice(0, 200)).to.equal(200);
    const doc = await PDFDocument.load(res.body);
    expect(doc.getPageCount()).to.equal(1);
    expect(doc.getPage(0).getSize()).to.deep.equal({ width: 8000, height: 8000 });
    expect(s.deps.pdf.counters.made - made).to.equal(1);
    expect(during.length, 'GET /v1/status was answered while the PDF was being made').to.be.at.least(3);
    const sorted = [...during].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    expect(median, `GET /v1/status while the PDF was made: ${sorted.map(Math.round).join(', ')} ms`).to.be.below(200);
  });

  it('an 800x400 PDF opens as one page of 800x400 points showing the PNG drawn for the same request, pixel for pixel (alpha as its soft mask)', async () => {
    const [pdfRes, pngRes] = await Promise.all([render('pdf', 800, 400), render('png', 800, 400)]);
    expect([pdfRes.status, pngRes.status]).to.deep.equal([200, 200]);
    expect(pdfRes.headers.get('content-type')).to.equal('application/pdf');
    const doc = await PDFDocument.load(await bytes(pdfRes));
    expect(doc.getPageCount()).to.equal(1);
    const page = doc.getPage(0);
    expect(page.getSize()).to.deep.equal({ width: 800, height: 400 });
    const image = page.node.Resources()!.lookup(PDFName.of('XObject'), PDFDict).lookup(PDFName.of('Im0'), PDFStream);
    const mask = image.dict.lookup(PDFName.of('SMask'), PDFStream);
    if (!(image instanceof PDFRawStream) || !(mask instanceof PDFRawStream)) throw new Error('the image and its mask are stored streams');
    const color = pixelsOf(image);
    const alpha = pixelsOf(mask);
    const png = PNG.sync.read(await bytes(pngRes));
    expect([color.width, color.height, color.channels, alpha.channels]).to.deep.equal([png.width, png.height, 3, 1]);
    let differ = 0;
    let transparent = 0;
    for (let i = 0; i < png.width * png.height; i++) {
      // pngjs gives RGBA whatever the file held
      const [r, g, b, a] = [color.data[i * 4], color.data[i * 4 + 1], color.data[i * 4 + 2], alpha.data[i * 4]];
      if (r !== png.data[i * 4] || g !== png.data[i * 4 + 1] || b !== png.data[i * 4 + 2] || a !== png.data[i * 4 + 3]) differ++;
      if (a === 0) transparent++;
    }
    expect(differ, 'pixels that differ from the PNG').to.equal(0);
    expect(transparent, 'the chart has a transparent background').to.be.above(0);
  });

  describe('a signed PDF URL', () => {
    const query = (width: string, exp: number) =>
      signed(
        [
          ['chart', JSON.stringify(CHART)],
          ['width', width],
          ['height', '300'],
          ['format', 'pdf'],
          ['key_id', acct.key_id],
          ['exp', String(exp)],
        ],
        acct.signing_secret,
      );
    const get = (q: string) => fetch(`${s.url}/v1/chart?${q}`);
    const nowS = () => Math.floor(clock.now() / 1000);

    it('fetched again is the same document from the cache, still no-store: drawn and converted once; another query is drawn anew', async () => {
      const q = query('600', nowS() + 600);
      const made = s.deps.pdf.counters.made;
      const first = await get(q);
      expect(first.status).to.equal(200);
      expect(first.headers.get('cache-control')).to.equal('private, no-store');
      const body = await bytes(first);
      for (let i = 0; i < 3; i++) {
        const again = await get(q);
        expect(again.status).to.equal(200);
        expect(again.headers.get('cache-control')).to.equal('private, no-store');
        expect((await bytes(again)).equals(body)).to.equal(true);
      }
      expect(s.deps.pdf.counters.made - made, 'PDFs converted').to.equal(1);
      const other = await get(query('601', nowS() + 600));
      expect(other.status).to.equal(200);
      expect((await PDFDocument.load(await bytes(other))).getPage(0).getSize()).to.deep.equal({ width: 601, height: 300 });
      expect(s.deps.pdf.counters.made - made, 'PDFs converted').to.equal(2);
      const metrics = await s.deps.metrics.text();
      expect(metrics).to.match(/^chartshot_signed_cache_lookups_total\{result="hit"\} [3-9]$/m);
      expect(metrics).to.match(/^chartshot_pdfs_total\{outcome="made"\} [2-9]$/m);
    });

    it('expired, or its key revoked, is refused with 401 although its image is held', async () => {
      const soon = query('602', nowS() + 5);
      expect((await get(soon)).status).to.equal(200);
      const entries = s.deps.signedCache.size.entries;
      clock.advance(6000);
      expect((await get(soon)).status).to.equal(401);
      expect(s.deps.signedCache.size.entries, 'the image is still held').to.equal(entries);

      const q = query('603', nowS() + 600);
      expect((await get(q)).status).to.equal(200);
      const hits = s.deps.signedCache.counters.hits;
      expect((await get(q)).status).to.equal(200);
      expect(s.deps.signedCache.counters.hits - hits, 'served from the cache').to.equal(1);
      await s.deps.accounts.revokeKey(acct.key_id);
      expect((await get(q)).status).to.equal(401);
      expect(s.deps.signedCache.counters.hits - hits, 'served from the cache').to.equal(1);
    });
  });
});
