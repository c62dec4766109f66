// Reading the repository's Markdown as a test needs it: sections, fenced blocks, links and the
// anchors GitHub gives headings.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every *.md under dir (recursively), node_modules and dot folders left out. */
export function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...markdownFiles(path));
    else if (name.endsWith('.md')) out.push(path);
  }
  return out.sort();
}

/** The text with fenced code blocks blanked (line count kept), so nothing inside them is read as Markdown. */
export function withoutFences(md: string): string {
  let inFence = false;
  return md
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : line;
    })
    .join('\n');
}

/** The body of the section whose heading (any level) is exactly `title`, up to the next heading of the same or a higher level; null when absent. */
export function section(md: string, title: string): string | null {
  const lines = md.split('\n');
  const plain = withoutFences(md).split('\n');
  const start = plain.findIndex((l) => /^#{1,6} /.test(l) && l.replace(/^#+ /, '').trim() === title);
  if (start < 0) return null;
  const level = /^#+/.exec(plain[start]!)![0].length;
  let end = start + 1;
  while (end < lines.length && !(/^#{1,6} /.test(plain[end]!) && /^#+/.exec(plain[end]!)![0].length <= level)) end++;
  return lines.slice(start + 1, end).join('\n');
}

/** The fenced blocks of one language, in order. */
export function fencedBlocks(md: string, lang: string): string[] {
  const re = new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```', 'gm');
  return [...md.matchAll(re)].map((m) => m[1]!);
}

/** Inline links and images outside code: `[text](target)`, with their line numbers. */
export function links(md: string): Array<{ target: string; line: number }> {
  const out: Array<{ target: string; line: number }> = [];
  withoutFences(md)
    .split('\n')
    .forEach((line, i) => {
      const prose = line.replace(/`[^`]*`/g, '');
      for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: m[1]!, line: i + 1 });
    });
  return out;
}

/** The anchors GitHub makes of a file's headings (lowercased, punctuation dropped, spaces to hyphens, repeats numbered). */
export function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of withoutFences(md).split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const text = m[1]!.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return out;
}
