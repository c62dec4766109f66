// The time zone and locale a chart is drawn in: a request's `timezone` (an IANA name) and
// `locale` (a BCP 47 tag), or the instance's TIMEZONE and LOCALE. Checked here, in Node, before
// anything reaches a page: Chromium's emulation takes an unknown zone without complaint and
// leaves the page where it was (measured on 156: `Nope/Zone` and `utc` were both "ok").
import { invalidConfig, type AppError } from '../errors.js';

export const DEFAULT_TIMEZONE = 'UTC';
export const DEFAULT_LOCALE = 'en-US';

/** The longest zone name or locale tag taken: IANA's longest name is 32 characters. */
export const MAX_ZONE_LOCALE_CHARS = 64;

/** What a time zone and locale field takes, with a valid example for the error's words. */
export const TIMEZONE_RULE = 'an IANA time zone name such as Europe/Berlin, America/New_York or UTC';
export const LOCALE_RULE = 'a BCP 47 language tag such as de-DE, fr-CH or en-US';

/** The zone and locale a render is drawn in. */
export interface ZoneLocale {
  readonly timezone: string;
  readonly locale: string;
}

export const DEFAULT_ZONE_LOCALE: ZoneLocale = Object.freeze({ timezone: DEFAULT_TIMEZONE, locale: DEFAULT_LOCALE });

// letters, digits and _ + - in segments separated by /, starting with a letter (no offsets such as
// +05:30: Chromium's emulation takes names only)
const ZONE_SYNTAX = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)*$/;
// letters and digits in subtags separated by - (en_US, with its underscore, is POSIX, not BCP 47)
const LOCALE_SYNTAX = /^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/;

let listed: Map<string, string> | null = null;
/** The zones this ICU lists, by their lower-case name: a case-insensitive match takes its spelling. */
function listedZones(): Map<string, string> {
  listed ??= new Map(Intl.supportedValuesOf('timeZone').map((z) => [z.toLowerCase(), z]));
  return listed;
}

/**
 * A zone name as the page is given it, or a reason it is refused. A name ICU lists keeps its own
 * spelling whatever the case (europe/berlin -> Europe/Berlin); an alias it knows but does not
 * list becomes its canonical name (US/Eastern -> America/New_York, Asia/Kolkata ->
 * Asia/Calcutta: Chromium's Intl reports the same), so every name sent to Chromium is one its
 * ICU resolves exactly.
 */
export function parseTimezone(value: unknown): { timezone: string } | { problem: string } {
  // the default needs no ICU: loading its zone data costs a command 100-200 ms at start
  if (value === DEFAULT_TIMEZONE) return { timezone: DEFAULT_TIMEZONE };
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ZONE_LOCALE_CHARS || !ZONE_SYNTAX.test(value)) {
    return { problem: `must be ${TIMEZONE_RULE} (letters, digits, _ + - and /, at most ${MAX_ZONE_LOCALE_CHARS} characters)` };
  }
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return { problem: `"${value}" is not a known time zone: use ${TIMEZONE_RULE}` };
  }
  return { timezone: listedZones().get(value.toLowerCase()) ?? canonical };
}

/**
 * A locale tag in its canonical form (de-de -> de-DE), or a reason it is refused: malformed, or
 * a language this ICU has no data for (xx-XX would be drawn as en-US without a word).
 */
export function parseLocale(value: unknown): { locale: string } | { problem: string } {
  if (value === DEFAULT_LOCALE) return { locale: DEFAULT_LOCALE };
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ZONE_LOCALE_CHARS || !LOCALE_SYNTAX.test(value)) {
    return { problem: `must be ${LOCALE_RULE} (letters, digits and -, at most ${MAX_ZONE_LOCALE_CHARS} characters)` };
  }
  let canonical: string;
  try {
    canonical = Intl.getCanonicalLocales(value)[0]!;
  } catch {
    return { problem: `"${value}" is not a well-formed language tag: use ${LOCALE_RULE}` };
  }
  if (canonical.length > MAX_ZONE_LOCALE_CHARS || Intl.NumberFormat.supportedLocalesOf([canonical]).length === 0) {
    return { problem: `"${value}" names no language this server has data for: use ${LOCALE_RULE}` };
  }
  return { locale: canonical };
}

/** The refusal of a timezone or locale field that is no string of the right shape (a schema's check). */
export function malformedZoneField(kind: 'timezone' | 'locale', field: string = kind): AppError {
  const r = kind === 'timezone' ? parseTimezone(null) : parseLocale(null);
  return invalidConfig(`${field} ${'problem' in r ? r.problem : ''}`);
}

/** A request's timezone field: absent (undefined, null or '') gives undefined; a bad one is 400 invalid_config naming the field. */
export function checkTimezone(value: unknown, field = 'timezone'): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const r = parseTimezone(value);
  if ('problem' in r) throw invalidConfig(`${field} ${r.problem}`);
  return r.timezone;
}

/** A request's locale field: absent gives undefined; a bad one is 400 invalid_config naming the field. */
export function checkLocale(value: unknown, field = 'locale'): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const r = parseLocale(value);
  if ('problem' in r) throw invalidConfig(`${field} ${r.problem}`);
  return r.locale;
}

/** Both fields of a request, each its own or the default's. */
export function zoneLocaleOf(fields: { timezone?: unknown; locale?: unknown }, defaults: ZoneLocale): ZoneLocale {
  return { timezone: checkTimezone(fields.timezone) ?? defaults.timezone, locale: checkLocale(fields.locale) ?? defaults.locale };
}
