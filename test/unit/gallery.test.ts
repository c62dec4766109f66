// The gallery draws each example once per process, and forgets a failed render.
import { expect } from 'chai';
import { GalleryService } from '../../src/services/gallery.js';
import { GALLERY } from '../../src/chart/gallery.js';
import type { RenderedImage } from '../../src/services/render.js';

describe('gallery images', () => {
  it('one render per example, however many ask; none for an unknown id; a failure is retried', async () => {
    let renders = 0;
    let fail = true;
    const svc = new GalleryService({
      render: async () => {
        renders++;
        if (fail) throw new Error('busy');
        return { body: Buffer.from('png'), contentType: 'image/png' } as RenderedImage;
      },
    });
    const id = GALLERY[0]!.id;
    await svc.image(id)!.catch(() => undefined);
    await new Promise((r) => setImmediate(r));
    fail = false;
    await Promise.all([svc.image(id), svc.image(id), svc.image(id)]);
    expect(renders).to.equal(2);
    expect(svc.image('nope')).to.equal(null);
    expect(new Set(GALLERY.map((e) => e.id)).size).to.equal(GALLERY.length);
  });
});
