// /gallery: a static page listing every example, and each image drawn by the server itself.
import { expect } from 'chai';
import { sharedServer } from '../helpers/server.js';
import { bytes } from '../helpers/client.js';
import { decodePng } from '../helpers/images.js';
import { GALLERY } from '../../src/chart/gallery.js';
import { CHART_TYPES } from '../../src/chart/chartTypes.js';

describe('gallery', function () {
  this.timeout(120_000);

  it('lists every chart type of every version, each image beside its config, behind a CSP', async () => {
    const s = await sharedServer();
    const res = await fetch(`${s.url}/gallery`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-security-policy')).to.include("default-src 'none'");
    const html = await res.text();
    for (const ex of GALLERY) expect(html, ex.id).to.include(`src="/gallery/${ex.id}.png"`);
    const v4 = new Set(GALLERY.filter((e) => e.chartjs === 4).map((e) => (e.config as { type: string }).type));
    // every type a Chart.js 4 config may name, but the rarer error-bar variants (their bundle is shown)
    expect(CHART_TYPES.filter((t) => !v4.has(t) && !['scatterWithErrorBars', 'polarAreaWithErrorBars'].includes(t))).to.deep.equal([]);
    expect(html).not.to.include('<script');
  });

  it('draws an example (Chart.js 4 and 2) and refuses names it does not have', async () => {
    const s = await sharedServer();
    for (const id of ['v4-bar', 'v2-pie']) {
      const res = await fetch(`${s.url}/gallery/${id}.png`);
      expect(res.status, id).to.equal(200);
      // as every image response: what drew it (the version the example names), nosniff
      expect(res.headers.get('x-chartshot-renderer'), id).to.match(new RegExp(`^chartjs=${id === 'v2-pie' ? '2' : '4'}\\.\\d+\\.\\d+; chromium=`));
      expect(res.headers.get('x-content-type-options'), id).to.equal('nosniff');
      const png = decodePng(await bytes(res));
      expect([png.width, png.height]).to.deep.equal([360, 220]);
      const coloured = png.data.filter((v, i) => i % 4 === 0 && v < 200).length;
      expect(coloured, id).to.be.greaterThan(500);
    }
    for (const bad of ['nope.png', 'v4-bar', 'v4-bar.svg', '..%2Fhome.css']) {
      expect((await fetch(`${s.url}/gallery/${bad}`)).status, bad).to.equal(404);
    }
  });
});
