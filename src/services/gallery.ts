// The gallery's images: each example drawn once by this server, on the first request for it, and
// kept for the life of the process (a fixed list: no request can make the page draw anything
// else or draw one twice). A failed render is forgotten, so a later visitor tries again.
import type { RenderService, RenderedImage } from './render.js';
import type { ChartConfig, RenderRequest } from '../chart/request.js';
import { GALLERY_HEIGHT, GALLERY_WIDTH, galleryExample } from '../chart/gallery.js';

export class GalleryService {
  private readonly images = new Map<string, Promise<RenderedImage>>();

  constructor(private readonly renderer: Pick<RenderService, 'render'>) {}

  /** The example's PNG, or null when there is no such example. */
  image(id: string): Promise<RenderedImage> | null {
    const ex = galleryExample(id);
    if (!ex) return null;
    let img = this.images.get(id);
    if (!img) {
      const req: RenderRequest = {
        config: structuredClone(ex.config) as ChartConfig,
        width: GALLERY_WIDTH,
        height: GALLERY_HEIGHT,
        format: 'png',
        backgroundColor: '#ffffff',
        allowFunctions: false,
        watermark: null,
        chartjs: ex.chartjs,
      };
      img = this.renderer.render(req);
      this.images.set(id, img);
      img.catch(() => this.images.delete(id));
    }
    return img;
  }
}
