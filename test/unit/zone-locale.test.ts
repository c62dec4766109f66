// Time zone and locale values: what a request field, TIMEZONE and LOCALE accept, in what
// spelling they reach the page, and the words of a refusal.
import { expect } from 'chai';
import { checkLocale, checkTimezone, parseLocale, parseTimezone, zoneLocaleOf } from '../../src/chart/zoneLocale.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { AppError } from '../../src/errors.js';
import { renderDigest, type RenderRequest } from '../../src/chart/request.js';
import { thrown } from '../helpers/rejection.js';

const refusal = (f: () => unknown): AppError => thrown(f, AppError);

describe('time zones and locales', () => {
  it('takes IANA names in any case, aliases as their canonical name', () => {
    const ok = (v: string) => (parseTimezone(v) as { timezone: string }).timezone;
    expect(ok('Europe/Berlin')).to.equal('Europe/Berlin');
    expect(ok('europe/berlin')).to.equal('Europe/Berlin');
    expect(ok('utc')).to.equal('UTC');
    expect(ok('Australia/Lord_Howe')).to.equal('Australia/Lord_Howe');
    expect(ok('Etc/GMT+5')).to.equal('Etc/GMT+5');
    expect(ok('US/Eastern')).to.equal('America/New_York');
    expect(ok('Asia/Kolkata')).to.equal('Asia/Calcutta');
  });

  it('refuses unknown zones, offsets, odd characters and long names: 400 invalid_config naming the field with an example', () => {
    for (const bad of ['Mars/Olympus', '+05:30', 'Europe/Berlin\n', 'Europe/Berlin;x', '../etc/passwd', 'A'.repeat(65), 'Europe/<b>', ' UTC', 7, true, {}, []]) {
      const e = refusal(() => checkTimezone(bad));
      expect([e.status, e.code], String(bad)).to.deep.equal([400, 'invalid_config']);
      expect(e.detail, String(bad)).to.match(/^timezone .*Europe\/Berlin/);
      // nothing odd is echoed back
      expect(e.detail).not.to.match(/[<;\n]|\.\.\//);
    }
    expect(refusal(() => checkTimezone('Mars/Olympus', 'tz')).detail).to.match(/^tz "Mars\/Olympus" is not a known time zone/);
    expect(checkTimezone(undefined)).to.equal(undefined);
    expect(checkTimezone('')).to.equal(undefined);
  });

  it('takes BCP 47 tags in their canonical form, extensions included', () => {
    const ok = (v: string) => (parseLocale(v) as { locale: string }).locale;
    expect(ok('de-de')).to.equal('de-DE');
    expect(ok('fr-CH')).to.equal('fr-CH');
    expect(ok('hi-IN')).to.equal('hi-IN');
    expect(ok('ar-EG')).to.equal('ar-EG');
    expect(ok('zh-hant-tw')).to.equal('zh-Hant-TW');
    expect(ok('en-US-u-nu-arab')).to.equal('en-US-u-nu-arab');
  });

  it('refuses malformed tags and languages without data: 400 invalid_config naming the field with an example', () => {
    for (const bad of ['en_US', 'x-private', 'i-klingon', 'xx-XX', 'de-DE!', 'de DE', 'a'.repeat(65), 'de-' + 'x'.repeat(9), 12]) {
      const e = refusal(() => checkLocale(bad));
      expect([e.status, e.code], String(bad)).to.deep.equal([400, 'invalid_config']);
      expect(e.detail, String(bad)).to.match(/^locale .*de-DE/);
    }
  });

  it('fills what a request does not name from the defaults', () => {
    const defaults = { timezone: 'Asia/Tokyo', locale: 'ja-JP' };
    expect(zoneLocaleOf({}, defaults)).to.deep.equal(defaults);
    expect(zoneLocaleOf({ timezone: 'europe/berlin' }, defaults)).to.deep.equal({ timezone: 'Europe/Berlin', locale: 'ja-JP' });
    expect(zoneLocaleOf({ locale: 'de-de', timezone: null }, defaults)).to.deep.equal({ timezone: 'Asia/Tokyo', locale: 'de-DE' });
  });

  it('TIMEZONE and LOCALE: UTC and en-US by default, never TZ or LANG; a bad value stops the start naming the variable', () => {
    const c = loadConfig({ TZ: 'Asia/Tokyo', LANG: 'de_DE.UTF-8', LC_ALL: 'fr_FR.UTF-8' });
    expect([c.timezone, c.locale]).to.deep.equal(['UTC', 'en-US']);
    const set = loadConfig({ TIMEZONE: 'america/new_york', LOCALE: 'fr-ch' });
    expect([set.timezone, set.locale]).to.deep.equal(['America/New_York', 'fr-CH']);
    expect(() => loadConfig({ TIMEZONE: 'Mars/Olympus' })).to.throw(ConfigError, /^TIMEZONE "Mars\/Olympus" is not a known time zone/);
    expect(() => loadConfig({ LOCALE: 'en_US' })).to.throw(ConfigError, /^LOCALE must be a BCP 47 language tag such as de-DE/);
  });

  it('the render digest: UTC and en-US leave it as it was; any other zone or locale is a different image', () => {
    const base: RenderRequest = { config: { type: 'bar', data: {} }, width: 10, height: 10, format: 'png', backgroundColor: null, allowFunctions: false, watermark: null };
    const digest = renderDigest(base);
    expect(renderDigest({ ...base, timezone: 'UTC', locale: 'en-US' })).to.equal(digest);
    const berlin = renderDigest({ ...base, timezone: 'Europe/Berlin' });
    const german = renderDigest({ ...base, locale: 'de-DE' });
    expect(new Set([digest, berlin, german, renderDigest({ ...base, timezone: 'Europe/Berlin', locale: 'de-DE' })]).size).to.equal(4);
  });
});
