// PDF output (enterprise): the PNG Chromium drew, placed on a page of the chart's size, made in a
// worker thread (pdfWorker.ts, pdfAssemble.ts) with a queue, a deadline and a bounded heap, so
// that a large PDF never holds Node's event loop: with pdf-lib on the main thread an 8000x8000
// PDF took 5.3 s of CPU and 873 MB while every other request waited. Why this way:
// docs/decisions/0039-pdf-off-the-event-loop.md.
import { Worker } from 'node:worker_threads';
import { pngToPdfBytes } from './pdfAssemble.js';
import type { PdfLimits } from './pdfPng.js';

export interface PdfOptions extends PdfLimits {
  /** Worker threads (started on first use, kept warm). */
  workers: number;
  /** A PDF still being made after this is stopped (its worker replaced), ms. */
  deadlineMs: number;
  /** PDFs waiting for a worker at most; past it refused (busy). */
  maxQueue: number;
  /** Each worker's V8 heap, MB (resourceLimits): a worker that needs more is stopped and replaced. */
  heapMb: number;
}

/** The fixed bounds (PdfLimits): 8000x8000 is the largest image any plan draws. */
export const DEFAULT_PDF: Omit<PdfOptions, 'deadlineMs' | 'maxOutputBytes'> = { workers: 1, maxQueue: 16, heapMb: 64, maxPixels: 8000 * 8000, level: 6 };

/** Why a PDF was not made: `busy` (the queue is full), `timeout`, `memory` (the worker's heap
 *  bound), `input` (the image cannot be one: over a limit, or not a PNG this reads), `closed`,
 *  `failed` (anything else). */
export class PdfError extends Error {
  constructor(
    readonly kind: 'busy' | 'timeout' | 'memory' | 'input' | 'closed' | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'PdfError';
  }
}

interface Job {
  id: number;
  png: Buffer;
  width: number;
  height: number;
  resolve(pdf: Buffer): void;
  reject(err: PdfError): void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer?: NodeJS.Timeout;
}

type Answer = { id: number; pdf: Uint8Array } | { id: number; error: string; input: boolean };

// The worker starts from plain JavaScript run with `eval` that imports its module by URL: from
// dist/, pdfWorker.js; from source (tests and benchmarks under tsx), pdfWorker.ts once tsx's loader
// is registered in the worker (Node 20 gives a worker neither the parent's loader nor a working
// `--import tsx`, and refuses a .ts file as its entry point).
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER_DATA = {
  module: new URL(FROM_SOURCE ? './pdfWorker.ts' : './pdfWorker.js', import.meta.url).href,
  tsx: FROM_SOURCE ? import.meta.resolve('tsx/esm/api') : null,
};
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
(workerData.tsx ? import(workerData.tsx).then((api) => api.register()) : Promise.resolve()).then(() => import(workerData.module));
`;

export class PdfConverter {
  readonly #opts: PdfOptions;
  readonly #slots: Slot[] = [];
  readonly #queue: Job[] = [];
  #nextId = 1;
  #closed = false;
  readonly counters = { made: 0, timeouts: 0, overMemory: 0, refused: 0 };

  constructor(opts: Partial<PdfOptions> & Pick<PdfOptions, 'deadlineMs' | 'maxOutputBytes'>) {
    this.#opts = { ...DEFAULT_PDF, ...opts };
  }

  /** PDFs being made and waiting. */
  stats(): { running: number; queued: number } {
    return { running: this.#slots.filter((s) => s.job !== null).length, queued: this.#queue.length };
  }

  /** The PDF of `png` on a page of width x height points, made off the event loop. */
  convert(png: Buffer, width: number, height: number): Promise<Buffer> {
    if (this.#closed) return Promise.reject(new PdfError('closed', 'the server is shutting down'));
    if (this.#queue.length >= this.#opts.maxQueue) {
      this.counters.refused++;
      return Promise.reject(new PdfError('busy', 'too many PDFs being made; try again'));
    }
    return new Promise<Buffer>((resolve, reject) => {
      this.#queue.push({ id: this.#nextId++, png, width, height, resolve, reject });
      this.#pump();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new PdfError('closed', 'the server is shutting down'));
    await Promise.all(this.#slots.splice(0).map((slot) => this.#stop(slot, new PdfError('closed', 'the server is shutting down'))));
  }

  #limits(): PdfLimits {
    return { maxPixels: this.#opts.maxPixels, maxOutputBytes: this.#opts.maxOutputBytes, ...(this.#opts.level !== undefined ? { level: this.#opts.level } : {}) };
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((s) => s.job === null);
      if (!slot && this.#slots.length < this.#opts.workers) slot = this.#start();
      if (!slot) return;
      const job = this.#queue.shift()!;
      const s = slot;
      s.job = job;
      s.timer = setTimeout(() => {
        this.counters.timeouts++;
        void this.#stop(s, new PdfError('timeout', `the PDF took longer than ${this.#opts.deadlineMs} ms to make`));
      }, this.#opts.deadlineMs);
      s.worker.postMessage({ id: job.id, png: job.png, width: job.width, height: job.height, limits: this.#limits() });
    }
  }

  #start(): Slot {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: WORKER_DATA, resourceLimits: { maxOldGenerationSizeMb: this.#opts.heapMb, maxYoungGenerationSizeMb: Math.max(1, Math.min(16, this.#opts.heapMb / 4)) } });
    // an idle worker never keeps the process alive
    worker.unref();
    const slot: Slot = { worker, job: null };
    worker.on('message', (msg: Answer) => {
      const job = slot.job;
      if (!job || job.id !== msg.id) return;
      clearTimeout(slot.timer);
      slot.job = null;
      if ('pdf' in msg) {
        this.counters.made++;
        job.resolve(Buffer.from(msg.pdf.buffer, msg.pdf.byteOffset, msg.pdf.byteLength));
      } else job.reject(new PdfError(msg.input ? 'input' : 'failed', msg.error));
      this.#pump();
    });
    // a worker that dies (over its heap bound) fails its job, then is replaced on demand
    worker.on('error', (err: Error & { code?: string }) => {
      const overMemory = err.code === 'ERR_WORKER_OUT_OF_MEMORY';
      if (overMemory) this.counters.overMemory++;
      void this.#stop(slot, new PdfError(overMemory ? 'memory' : 'failed', overMemory ? `making the PDF went over its ${this.#opts.heapMb} MB heap` : `the PDF worker failed: ${err.message}`));
    });
    worker.on('exit', () => void this.#stop(slot, new PdfError('failed', 'the PDF worker stopped')));
    this.#slots.push(slot);
    return slot;
  }

  async #stop(slot: Slot, reason: PdfError): Promise<void> {
    clearTimeout(slot.timer);
    const job = slot.job;
    slot.job = null;
    const i = this.#slots.indexOf(slot);
    if (i >= 0) this.#slots.splice(i, 1);
    job?.reject(reason);
    await slot.worker.terminate().catch(() => undefined);
    if (!this.#closed) this.#pump();
  }
}

/** A PDF made in place, on the calling thread: for small images only (the fixed error image),
 *  or where no event loop serves requests (the CLI). */
export function pngToPdf(png: Buffer, width: number, height: number, limits: PdfLimits = { maxPixels: DEFAULT_PDF.maxPixels, maxOutputBytes: 256 * 1024 * 1024 }): Promise<Buffer> {
  return pngToPdfBytes(png, width, height, limits);
}
