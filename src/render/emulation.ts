// A page's time zone and locale, set with Chromium's own emulation (decision 37).
import type { ZoneLocale } from '../chart/zoneLocale.js';

/** A CDP command on the page's session, written now, in order with the render call after it. */
export type SessionCommand = (method: string, params: Record<string, unknown>) => Promise<unknown>;

export class ZoneEmulation {
  /** The zone and locale last sent (Chromium keeps them across the page's loads); null: none yet. */
  private sent: ZoneLocale | null = null;

  constructor(private readonly command: SessionCommand) {}

  /**
   * Puts the page in `want`'s zone and locale (the zone of Date and Intl, Intl's default locale,
   * navigator.language) when it is not there already; null when it is. The commands are not
   * awaited before the render sent after them: a session's commands run in order in the
   * renderer, so that render draws in the new zone (0 of 30 pipelined pairs out of order behind
   * busy scripts) and a switch costs no round trip of its own. Chromium takes an unknown zone
   * without complaint and stays where it was, so the page checks what it draws in as well
   * (harness zone.js).
   */
  set(want: ZoneLocale): Promise<void> | null {
    const was = this.sent;
    if (was && was.timezone === want.timezone && was.locale === want.locale) return null;
    this.sent = want;
    const sends: Promise<unknown>[] = [];
    if (!was || was.timezone !== want.timezone) sends.push(this.command('Emulation.setTimezoneOverride', { timezoneId: want.timezone }));
    if (!was || was.locale !== want.locale) {
      sends.push(this.command('Emulation.setLocaleOverride', { locale: want.locale }));
      // navigator.language(s); an empty user agent leaves the browser's own
      sends.push(this.command('Emulation.setUserAgentOverride', { userAgent: '', acceptLanguage: want.locale }));
    }
    return Promise.all(sends).then(() => undefined);
  }
}
