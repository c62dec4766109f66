// What a PDF may cost, and how long a signed URL's image is kept: the PDF worker's queue,
// deadline and input checks (real worker threads), and the signed-URL cache's bounds in bytes
// and seconds on a fake clock.
import { expect } from 'chai';
import { PNG } from 'pngjs';
import { PdfConverter, PdfError } from '../../src/render/pdf.js';
import { SignedImageCache } from '../../src/services/signedCache.js';
import type { RenderedImage } from '../../src/services/render.js';
import { FakeClock } from '../helpers/clock.js';

/** A noisy RGBA PNG (noise deflates badly: the conversion has real work to do). */
function noisyPng(side: number): Buffer {
  const png = new PNG({ width: side, height: side });
  let x = 1;
  for (let i = 0; i < png.data.length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    png.data[i] = x >>> 24;
  }
  return PNG.sync.write(png);
}

const kindOf = (p: Promise<unknown>) => p.then(() => 'made', (e: unknown) => (e instanceof PdfError ? e.kind : String(e)));

describe('PDF worker bounds', function () {
  this.timeout(60000);
  const small = noisyPng(64);

  it('a PDF past its deadline fails as timeout, its worker ended; the next PDF gets a new one', async () => {
    const pdf = new PdfConverter({ deadlineMs: 1, maxOutputBytes: 64 * 1024 * 1024 });
    try {
      expect(await kindOf(pdf.convert(noisyPng(1500), 1500, 1500))).to.equal('timeout');
      expect(pdf.counters.timeouts).to.equal(1);
      expect(pdf.stats()).to.deep.equal({ running: 0, queued: 0 });
      // the replacement worker is started for the next PDF (which this deadline also stops)
      expect(await kindOf(pdf.convert(noisyPng(1500), 1500, 1500))).to.equal('timeout');
      expect(pdf.counters.timeouts).to.equal(2);
    } finally {
      await pdf.close();
    }
  });

  it('past the queue: busy; not a PNG, over the pixel bound or over the byte bound: input; after close: closed', async () => {
    const pdf = new PdfConverter({ deadlineMs: 30000, maxOutputBytes: 64 * 1024 * 1024, maxQueue: 1 });
    try {
      const first = kindOf(pdf.convert(small, 64, 64));
      const second = kindOf(pdf.convert(small, 64, 64));
      expect(await kindOf(pdf.convert(small, 64, 64))).to.equal('busy');
      expect([await first, await second]).to.deep.equal(['made', 'made']);
      expect(await kindOf(pdf.convert(Buffer.from('GIF89a not a png at all, padded to be long enough'), 10, 10))).to.equal('input');
    } finally {
      await pdf.close();
    }
    const tight = new PdfConverter({ deadlineMs: 30000, maxOutputBytes: 1000, maxPixels: 32 * 32 });
    try {
      expect(await kindOf(tight.convert(small, 64, 64))).to.equal('input');
      expect(await kindOf(tight.convert(noisyPng(30), 30, 30))).to.equal('input');
    } finally {
      await tight.close();
    }
    expect(await kindOf(tight.convert(small, 64, 64))).to.equal('closed');
  });
});

describe('signed-URL cache bounds', () => {
  const img = (bytes: number): RenderedImage => ({ body: Buffer.alloc(bytes), contentType: 'application/pdf', format: 'pdf', renderMs: 5, coalesced: false, digest: 'd', pageClean: true });

  it('an image is served for ttlMs after its render, then rendered again', () => {
    const clock = new FakeClock();
    const cache = new SignedImageCache(clock, { ttlMs: 60_000 });
    cache.set('q', img(10));
    clock.advance(59_999);
    expect(cache.get('q')?.body.length).to.equal(10);
    clock.advance(1);
    expect(cache.get('q')).to.equal(undefined);
    expect(cache.size).to.deep.equal({ bytes: 0, entries: 0 });
  });

  it('holds at most maxBytes, dropping the least recently used; an image over maxEntryBytes is never held', () => {
    const cache = new SignedImageCache(new FakeClock(), { maxBytes: 3000, maxEntryBytes: 1500 });
    cache.set('a', img(1000));
    cache.set('b', img(1000));
    expect(cache.get('a')).to.not.equal(undefined);
    cache.set('c', img(1000));
    expect(cache.get('b'), 'the least recently used went first').to.equal(undefined);
    expect(cache.get('a')).to.not.equal(undefined);
    expect(cache.get('c')).to.not.equal(undefined);
    expect(cache.size.bytes).to.be.at.most(3000);
    cache.set('big', img(1600));
    expect(cache.get('big')).to.equal(undefined);
    expect(cache.size.entries).to.equal(2);
  });

  it('a clock set back does not keep an image past its time', () => {
    const clock = new FakeClock();
    const cache = new SignedImageCache(clock, { ttlMs: 1000 });
    cache.set('q', img(10));
    clock.advance(-5000);
    expect(cache.get('q')).to.equal(undefined);
  });
});
