// @ts-check
// ---- the zone and locale a render is drawn in ---------------------------------------------
// Node puts the page in its render's time zone and locale with Chromium's own emulation before
// the render reaches it (src/render/page.ts) and names both in the request. The page checks
// them before anything is drawn: Chromium takes an unknown zone without a word and stays where
// it was, and a page drawing in the zone of the render before would draw another caller's
// ticks. Saved at load, before caller code: a config cannot change what is compared.
var DateTimeFormatCtor = Intl.DateTimeFormat;
var resolvedOptions = Intl.DateTimeFormat.prototype.resolvedOptions;

/**
 * The zone and locale a date formatter resolves: the page's own (no arguments), or those named.
 * @param {string | undefined} locale
 * @param {string | undefined} timeZone
 * @returns {{ locale: string, timeZone: string }}
 */
function resolvedZone(locale, timeZone) {
  var f = timeZone === undefined ? new DateTimeFormatCtor(locale) : new DateTimeFormatCtor(locale, { timeZone: timeZone });
  return apply(resolvedOptions, f, []);
}

/**
 * A refusal when the page is not drawing in the zone or locale its request names (or does not
 * know them); null when it is, or when the request names neither.
 * @param {PageRequestIn} req
 * @returns {import('../protocol').PageAnswer | null}
 */
function zoneRefusal(req) {
  var zone = req.timezone;
  var locale = req.locale;
  if (zone === undefined && locale === undefined) return null;
  /** @type {'timezone' | 'locale' | null} */
  var unknown = null;
  var wrong = false;
  try {
    var have = resolvedZone(undefined, undefined);
    if (zone !== undefined) {
      if (typeof zone !== 'string') throw new Error('timezone must be a string');
      var wantZone;
      try {
        wantZone = resolvedZone('en-US', zone).timeZone;
      } catch (e) {
        unknown = 'timezone';
      }
      if (unknown === null && have.timeZone !== wantZone) wrong = true;
    }
    if (unknown === null && !wrong && locale !== undefined) {
      if (typeof locale !== 'string') throw new Error('locale must be a string');
      var wantLocale;
      try {
        wantLocale = resolvedZone(locale, undefined).locale;
      } catch (e) {
        unknown = 'locale';
      }
      if (unknown === null && have.locale !== wantLocale) wrong = true;
    }
  } catch (e) {
    wrong = true;
  }
  if (unknown === null && !wrong) return null;
  var out = outcome(false);
  out.ranFunctions = false;
  out.needsReset = false;
  if (unknown !== null) {
    out.unknownZone = unknown;
    out.error = unknown === 'timezone' ? 'this page knows no time zone ' + zone : 'this page knows no locale ' + locale;
  } else {
    out.wrongZone = true;
    out.error = 'the page is not in the time zone and locale of its request';
  }
  return /** @type {import('../protocol').PageAnswer} */ (out);
}
