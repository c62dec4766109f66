// The headers every image response carries, whatever the route or format. An image URL opened
// on its own is a document of this origin: nosniff keeps a browser from reading it as anything
// but its declared type, and an SVG may run no script, load nothing and is sandboxed (the SVG
// is already serialised from an allow-list in the page; this is the second layer).
import type { Context } from 'koa';

export const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

export function setImageHeaders(ctx: Context, contentType: string): void {
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (contentType.startsWith('image/svg')) ctx.set('Content-Security-Policy', SVG_CSP);
}

/** If-None-Match (a list, weak or strong, or *) names this ETag (weak comparison). */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}
