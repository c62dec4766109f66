// A PDF of one page showing a PNG, written here rather than with a PDF library: the page is
// the chart's size and holds the image; the PNG is never decoded when it has no alpha (its
// IDAT stream is a FlateDecode stream with PNG predictors, which PDF reads as it is), and
// otherwise is inflated, unfiltered and split into colour and alpha (an SMask) a row at a time,
// so its memory stays a few rows whatever its size. Runs in the PDF worker (pdf.ts) for a
// render, in place for the fixed 120x20 error image. Why: docs/decisions/0039-pdf-off-the-event-loop.md.
import { PdfInputError, readPng, splitAlpha, type PdfLimits } from './pdfPng.js';

/** One image XObject's stream and its dictionary entries (without /Length). */
interface ImageStream {
  dict: string;
  data: Buffer[];
}

/**
 * The PDF for a PNG, placed on a page of width x height points. The same PNG always gives the
 * same bytes (no dates, no ids).
 */
export async function pngToPdfBytes(png: Buffer, width: number, height: number, limits: PdfLimits): Promise<Buffer> {
  const img = readPng(png);
  if (img.width * img.height > limits.maxPixels) throw new PdfInputError(`the image has ${img.width * img.height} pixels; at most ${limits.maxPixels}`);
  const size = `/Width ${img.width} /Height ${img.height} /BitsPerComponent 8`;
  let color: ImageStream;
  let alpha: ImageStream | null = null;
  if (img.colorType === 0 || img.colorType === 2) {
    // no alpha: the IDAT stream is already what PDF's FlateDecode with PNG predictors reads
    const colors = img.colorType === 2 ? 3 : 1;
    const space = colors === 3 ? '/DeviceRGB' : '/DeviceGray';
    color = { dict: `/Type /XObject /Subtype /Image ${size} /ColorSpace ${space} /Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors ${colors} /BitsPerComponent 8 /Columns ${img.width} >>`, data: img.idat };
  } else {
    const split = await splitAlpha(img, limits);
    const colors = img.colorType === 6 ? 3 : 1;
    const space = colors === 3 ? '/DeviceRGB' : '/DeviceGray';
    const predictor = (n: number) => `/DecodeParms << /Predictor 15 /Colors ${n} /BitsPerComponent 8 /Columns ${img.width} >>`;
    color = { dict: `/Type /XObject /Subtype /Image ${size} /ColorSpace ${space} /Filter /FlateDecode ${predictor(colors)}`, data: split.color };
    // an image without a single transparent pixel needs no mask
    if (!split.opaque) alpha = { dict: `/Type /XObject /Subtype /Image ${size} /ColorSpace /DeviceGray /Filter /FlateDecode ${predictor(1)}`, data: split.alpha };
  }
  const pdf = writePdf(width, height, color, alpha);
  if (pdf.length > limits.maxOutputBytes) throw new PdfInputError(`the PDF would be over ${limits.maxOutputBytes} bytes`);
  return pdf;
}

/** A point number as PDF writes it (integers as such, others with up to 4 decimals). */
function num(n: number): string {
  return Number.isInteger(n) ? String(n) : String(Number(n.toFixed(4)));
}

function writePdf(width: number, height: number, color: ImageStream, alpha: ImageStream | null): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const put = (b: Buffer | string) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    length += buf.length;
  };
  const object = (n: number, body: string, stream?: Buffer[]) => {
    offsets[n] = length;
    if (!stream) {
      put(`${n} 0 obj\n${body}\nendobj\n`);
      return;
    }
    const bytes = stream.reduce((s, b) => s + b.length, 0);
    put(`${n} 0 obj\n<< ${body} /Length ${bytes} >>\nstream\n`);
    for (const b of stream) put(b);
    put('\nendstream\nendobj\n');
  };
  put('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  const content = `q ${num(width)} 0 0 ${num(height)} 0 0 cm /Im0 Do Q`;
  object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  object(2, '<< /Type /Pages /Kids [3 0 R] /Count 1 >>');
  object(3, `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${num(width)} ${num(height)}] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>`);
  object(4, '', [Buffer.from(content, 'latin1')]);
  object(5, color.dict + (alpha ? ' /SMask 6 0 R' : ''), color.data);
  if (alpha) object(6, alpha.dict, alpha.data);
  const info = alpha ? 7 : 6;
  object(info, '<< /Producer (chartshot) /Creator (chartshot) >>');
  const xref = length;
  const count = info + 1;
  let table = `xref\n0 ${count}\n0000000000 65535 f \n`;
  for (let i = 1; i < count; i++) table += `${String(offsets[i]).padStart(10, '0')} 00000 n \n`;
  put(table);
  put(`trailer\n<< /Size ${count} /Root 1 0 R /Info ${info} 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts, length);
}
