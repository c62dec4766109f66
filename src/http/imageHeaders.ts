// The headers every image response carries, whatever the route or format. An image URL opened
// on its own is a document of this origin: nosniff keeps a browser from reading it as anything
// but its declared type, and an SVG may run no script, load nothing and is sandboxed (the SVG
// is already serialised from an allow-list in the page; this is the second layer).
// X-Chartshot-Renderer names what drew it, so a changed image can be told from a changed renderer.
import type { Context } from 'koa';
import { FINGERPRINT_HEADER, type RendererFingerprint } from '../render/fingerprint.js';

export const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** What draws this instance's images, as the routes that serve them are given it (createApp's deps.fingerprint). */
export type RendererHeader = Pick<RendererFingerprint, 'header'>;

/**
 * `renderer`: the header value of the Chart.js version that drew this image (a fresh render
 * knows it); a stored image gets this instance's Chart.js 4 value (`deps.fingerprint?.header()`);
 * undefined: no header (no renderer known, e.g. an app built without a pool).
 */
export function setImageHeaders(ctx: Context, contentType: string, renderer: string | undefined): void {
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (contentType.startsWith('image/svg')) ctx.set('Content-Security-Policy', SVG_CSP);
  if (renderer) ctx.set(FINGERPRINT_HEADER, renderer);
}

/** If-None-Match (a list, weak or strong, or *) names this ETag (weak comparison). */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}
