// A QR code with QuickChart's caption or center image, drawn by a renderer page: the code itself
// (our PNG, drawn 1:1 so no module is resampled), the center image over its middle, and the
// caption as a bottom title in a strip of its own, on the light colour. Plain codes never come here.
import type { QrRequest } from '../chart/qr.js';
import type { PlacedImage, RenderRequest } from '../chart/request.js';

/** Height of the caption's strip: one line of text (1.2 x the font size) and half a font size above and below. */
export function captionStrip(fontSize: number): { height: number; padding: number } {
  const padding = Math.round(fontSize / 2);
  return { height: Math.ceil(fontSize * 1.2) + 2 * padding, padding };
}

/** The center image's box: centerImageWidth/Height when given (one alone: a square), else sizeRatio of the code. */
function centerBox(side: number, c: NonNullable<QrRequest['centerImage']>): { x: number; y: number; width: number; height: number } {
  const w = Math.min(side, c.width ?? c.height ?? Math.round(side * c.sizeRatio));
  const h = Math.min(side, c.height ?? c.width ?? Math.round(side * c.sizeRatio));
  return { x: (side - w) / 2, y: (side - h) / 2, width: w, height: h };
}

/**
 * The page's request: Chart.js 4 drawing no data and no scales, only the caption as its title;
 * the code and the center image are images behind it. `side` is the code's PNG side in pixels.
 */
export function composedQrRequest(q: QrRequest, codePng: Buffer, side: number, centerImage: string | undefined): RenderRequest {
  const strip = q.caption ? captionStrip(q.caption.fontSize) : null;
  const images: PlacedImage[] = [{ src: `data:image/png;base64,${codePng.toString('base64')}`, box: { x: 0, y: 0, width: side, height: side } }];
  if (q.centerImage && centerImage) images.push({ src: centerImage, box: centerBox(side, q.centerImage), fit: 'contain' });
  const title = q.caption
    ? {
        display: true,
        position: 'bottom',
        text: q.caption.text,
        color: q.caption.color,
        font: { family: q.caption.fontFamily, size: q.caption.fontSize, weight: 'normal', lineHeight: 1.2 },
        padding: strip!.padding,
      }
    : { display: false };
  return {
    config: {
      type: 'bar',
      data: { datasets: [] },
      options: {
        events: [],
        layout: { padding: 0 },
        scales: { x: { display: false }, y: { display: false } },
        plugins: { legend: { display: false }, tooltip: { enabled: false }, datalabels: { display: false }, title },
      },
    },
    width: side,
    height: side + (strip?.height ?? 0),
    format: q.format,
    backgroundColor: q.light,
    allowFunctions: false,
    watermark: null,
    chartjs: 4,
    images,
  };
}
