// PDF output (enterprise): the PNG Chromium drew, placed on a page of the chart's size.
import { PDFDocument } from 'pdf-lib';

// No creation or modification date: the same chart gives the same bytes, as PNG and SVG do.
export async function pngToPdf(png: Buffer, width: number, height: number): Promise<Buffer> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.setProducer('chartshot');
  doc.setCreator('chartshot');
  const img = await doc.embedPng(png);
  const page = doc.addPage([width, height]);
  page.drawImage(img, { x: 0, y: 0, width, height });
  return Buffer.from(await doc.save());
}
