// Per-draw cost of a 1000-pixel QR code: the qrcode package's PNG renderer against encodeQrPng (run: npx tsx bench/qr-draw.ts).
import QRCode from 'qrcode';
import { PNG } from 'pngjs';
import { encodeQrPng } from '../src/services/qrPng.js';
let bad = 0;
for (const [text, size, margin, dark, light, ec] of [['hi', 150, 4, '#000000', '#ffffff', 'M'], ['https://example.com/x', 1000, 4, '#ff0000', '#00ff0080', 'H'], ['x', 10, 0, '#000000', '#ffffff', 'L'], ['abc'.repeat(100), 333, 7, '#123456', '#fedcba', 'Q']] as const) {
  const a = PNG.sync.read(await QRCode.toBuffer(text, { type: 'png', width: size, margin, errorCorrectionLevel: ec, color: { dark, light } }));
  const b = PNG.sync.read(await encodeQrPng(QRCode.create(text, { errorCorrectionLevel: ec }).modules, { width: size, margin, dark, light }));
  const same = a.width === b.width && a.height === b.height && Buffer.compare(a.data, b.data) === 0;
  if (!same) bad++;
  console.log(text.slice(0, 10), size, a.width, b.width, same);
}
const n = 20;
let t0 = performance.now();
for (let i = 0; i < n; i++) await QRCode.toBuffer('https://example.com/' + i + 'x'.repeat(100), { type: 'png', width: 1000, margin: 4, errorCorrectionLevel: 'M' });
console.log('before (QRCode.toBuffer) ms/draw', ((performance.now() - t0) / n).toFixed(1));
t0 = performance.now();
let main = 0;
for (let i = 0; i < n; i++) {
  const s = performance.now();
  const m = QRCode.create('https://example.com/' + i + 'x'.repeat(100), { errorCorrectionLevel: 'M' }).modules;
  const p = encodeQrPng(m, { width: 1000, margin: 4, dark: '#000000', light: '#ffffff' });
  main += performance.now() - s;
  await p;
}
console.log('after ms/draw', ((performance.now() - t0) / n).toFixed(1), 'of which synchronous (event loop)', (main / n).toFixed(1));
process.exit(bad);
