// Keyed and keyless short-chart ids never meet: a keyless id names an open-cache image by its
// digest and nothing else; a keyed id (random) is never read as one.
import { expect } from 'chai';
import { isChartId, keylessChartId, keylessDigestOf } from '../../src/chart/chartId.js';
import { newChartId } from '../../src/services/shortCharts.js';
import { renderDigest } from '../../src/chart/request.js';
import type { RenderRequest } from '../../src/chart/request.js';

describe('short chart ids: keyed and keyless', () => {
  it('a keyless id round-trips its digest and fits the route pattern', () => {
    const digest = renderDigest({ config: { type: 'bar', data: { datasets: [] } }, width: 10, height: 10, format: 'png', backgroundColor: 'white', allowFunctions: false, watermark: null } as unknown as RenderRequest);
    const id = keylessChartId(digest);
    expect(isChartId(id)).to.equal(true);
    expect(keylessDigestOf(id)).to.equal(digest);
  });

  it('no keyed id is read as keyless, and nothing but a digest reaches the open cache key', () => {
    for (let i = 0; i < 1000; i++) expect(keylessDigestOf(newChartId())).to.equal(null);
    // the edit states share the open cache under "open:edit:": an id cannot name them
    for (const id of [`oedit:${'A'.repeat(38)}`, `o${'A'.repeat(42)}`, `o${'A'.repeat(44)}`, `O${'A'.repeat(43)}`, `o${'A'.repeat(42)}=`]) {
      expect(keylessDigestOf(id), id).to.equal(null);
    }
  });
});
