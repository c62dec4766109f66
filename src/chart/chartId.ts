// A short chart's id: URL-safe, from 16 characters (96 random bits) to 64. The one statement of
// the pattern: the JSON Schema of the routes, the fast path and the services all use it.
export const CHART_ID_PATTERN = '^[A-Za-z0-9_-]{16,64}$';
const CHART_ID = new RegExp(CHART_ID_PATTERN);

export const isChartId = (id: string): boolean => CHART_ID.test(id);
