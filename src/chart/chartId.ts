// A short chart's id: URL-safe, from 16 characters (96 random bits) to 64. The one statement of
// the pattern: the JSON Schema of the routes, the fast path and the services all use it.
export const CHART_ID_PATTERN = '^[A-Za-z0-9_-]{16,64}$';
const CHART_ID = new RegExp(CHART_ID_PATTERN);

export const isChartId = (id: string): boolean => CHART_ID.test(id);

// A keyless short chart (POST /chart/create with QUICKCHART_ANONYMOUS) has no row in the store:
// its id names its image in the open cache, "o" + the image's renderDigest (SHA-256, 43
// base64url characters), so one config always gets one id. 44 characters: a keyed id
// (newChartId) is 22, so the two kinds never meet, and the id still fits CHART_ID_PATTERN.
const KEYLESS_ID = /^o([A-Za-z0-9_-]{43})$/;

export const keylessChartId = (digest: string): string => `o${digest}`;

/** The render digest a keyless id names, or null when `id` is not a keyless id. */
export function keylessDigestOf(id: string): string | null {
  const m = KEYLESS_ID.exec(id);
  return m ? m[1]! : null;
}
