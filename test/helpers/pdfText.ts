// The text of a PDF as Chromium (Skia) prints it: each text object's strings decoded through its
// font's ToUnicode map, text objects joined by newlines. Enough to find a line on an invoice.
import { decodePDFRawStream, PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, type PDFObject } from 'pdf-lib';

const streamText = (s: PDFRawStream) => Buffer.from(decodePDFRawStream(s).decode()).toString('latin1');
const utf16 = (hex: string) => Buffer.from(hex, 'hex').swap16().toString('utf16le');

/** Source code (hex, upper case) -> text, from a ToUnicode CMap's bfchar and bfrange sections. */
function parseCmap(text: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const [, body] of text.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const [, src, dst] of body!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>/g)) map.set(src!.toUpperCase(), utf16(dst!));
  }
  for (const [, body] of text.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const [, lo, hi, dst, list] of body!.matchAll(/<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(?:<([0-9A-Fa-f]+)>|\[([^\]]*)\])/g)) {
      const from = parseInt(lo!, 16);
      const width = lo!.length;
      const items = list ? [...list.matchAll(/<([0-9A-Fa-f]+)>/g)].map((m) => m[1]!) : null;
      for (let c = from; c <= parseInt(hi!, 16); c++) {
        const key = c.toString(16).toUpperCase().padStart(width, '0');
        if (items) map.set(key, utf16(items[c - from]!));
        else map.set(key, String.fromCodePoint(parseInt(dst!, 16) + c - from));
      }
    }
  }
  return map;
}

function streamsOf(obj: PDFObject | undefined, doc: PDFDocument): PDFRawStream[] {
  const o = obj && doc.context.lookup(obj);
  if (o instanceof PDFRawStream) return [o];
  if (o instanceof PDFArray) return o.asArray().flatMap((x) => streamsOf(x, doc));
  return [];
}

export async function pdfText(bytes: Uint8Array): Promise<string> {
  const doc = await PDFDocument.load(bytes, { updateMetadata: false });
  const out: string[] = [];
  for (const page of doc.getPages()) {
    const cmaps = new Map<string, Map<string, string>>();
    const fonts = page.node.Resources()?.lookupMaybe(PDFName.of('Font'), PDFDict);
    for (const [name, ref] of fonts?.entries() ?? []) {
      const font = doc.context.lookup(ref, PDFDict);
      const tu = font.lookup(PDFName.of('ToUnicode'));
      if (tu instanceof PDFRawStream) cmaps.set(name.asString().slice(1), parseCmap(streamText(tu)));
    }
    for (const content of streamsOf(page.node.get(PDFName.of('Contents')), doc)) {
      let cmap = new Map<string, string>();
      let line = '';
      for (const m of streamText(content).matchAll(/\/([\w.+-]+)\s+[\d.]+\s+Tf|<([0-9A-Fa-f]*)>|\b(ET)\b/g)) {
        if (m[1] !== undefined) cmap = cmaps.get(m[1]) ?? new Map();
        else if (m[2] !== undefined) for (let i = 0; i + 4 <= m[2].length; i += 4) line += cmap.get(m[2].slice(i, i + 4).toUpperCase()) ?? '\uFFFD';
        else if (m[3]) {
          out.push(line);
          line = '';
        }
      }
    }
  }
  return out.join('\n');
}
