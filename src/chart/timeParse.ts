// Timestamps as the Chart.js 4 page's date adapter reads them, for checks made before the page
// (the open endpoint's time-scale cap). The page draws a chart whose time formats use moment's
// tokens with chartjs-adapter-moment and every other chart with chartjs-adapter-date-fns
// (renderer-page/moment4.js, decision 26): the same rule here, so a moment format is neither a
// crash of date-fns in Node nor a different span from the one the page will draw.
import { parse as parseWithFormat, parseISO, isValid } from 'date-fns';
import moment from 'moment';

type Json = unknown;

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A format only moment reads: Y, D or A outside moment's [escapes] and date-fns's 'quotes'. */
export function isMomentFormat(f: Json): boolean {
  if (typeof f !== 'string' || f.length > 200) return false;
  return /[YDA]/.test(f.replace(/\[[^\]]*\]/g, '').replace(/'[^']*'/g, ''));
}

/** True when the page draws this config's time scales with moment (as moment4.js decides). */
export function wantsMoment(config: Record<string, Json>): boolean {
  const options = config.options;
  const scales = isObject(options) && isObject(options.scales) ? options.scales : null;
  if (!scales) return false;
  for (const id of Object.keys(scales).slice(0, 50)) {
    const scale = scales[id];
    const time = isObject(scale) ? scale.time : undefined;
    if (!isObject(time)) continue;
    if (isMomentFormat(time.parser) || isMomentFormat(time.tooltipFormat)) return true;
    const shown = time.displayFormats;
    if (isObject(shown) && Object.values(shown).some(isMomentFormat)) return true;
  }
  return false;
}

/**
 * A value on a time scale as ms, or null when the adapter would not read it: numbers as they
 * are; strings by moment (non-strict, as chartjs-adapter-moment parses) or by date-fns, whose
 * refusal of a format (a RangeError) is "not a time" here: the page answers for the config.
 */
export function toTime(v: Json, format: string | undefined, withMoment: boolean): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v !== 'string') return null;
  if (withMoment) {
    const m = format !== undefined ? moment(v, format) : moment(v);
    return m.isValid() ? m.valueOf() : null;
  }
  let d: Date;
  try {
    d = format !== undefined ? parseWithFormat(v, format, new Date(0)) : parseISO(v);
  } catch {
    return null;
  }
  if (isValid(d)) return d.getTime();
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : null;
}
