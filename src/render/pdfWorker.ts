// The PDF worker's side (pdf.ts): one PNG in, its PDF out, one at a time.
import { parentPort } from 'node:worker_threads';
import { pngToPdfBytes } from './pdfAssemble.js';
import { PdfInputError, type PdfLimits } from './pdfPng.js';

interface Job {
  id: number;
  png: Uint8Array;
  width: number;
  height: number;
  limits: PdfLimits;
}

parentPort!.on('message', (job: Job) => {
  const png = Buffer.from(job.png.buffer, job.png.byteOffset, job.png.byteLength);
  pngToPdfBytes(png, job.width, job.height, job.limits).then(
    (pdf) => {
      // a buffer of its own moves to the main thread without a copy
      const own = pdf.byteOffset === 0 && pdf.byteLength === pdf.buffer.byteLength;
      parentPort!.postMessage({ id: job.id, pdf }, own ? [pdf.buffer as ArrayBuffer] : []);
    },
    (err: unknown) => parentPort!.postMessage({ id: job.id, error: err instanceof Error ? err.message : String(err), input: err instanceof PdfInputError }),
  );
});
