// E-mail addresses as they may be stored and written into SMTP commands (pure): a plain
// addr-spec, bounded, with no control characters (a CR/LF would smuggle a second SMTP command).

/** RFC 5321's limits: 64 for the local part, 254 for the whole path. */
export const MAX_EMAIL_LENGTH = 254;

// dot-atom local part and a dotted domain of letters, digits and hyphens (or IDNA "xn--" labels)
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/** Why the address is unusable, or null when it is a plain addr-spec. */
export function emailProblem(email: string): string | null {
  if (email.length > MAX_EMAIL_LENGTH) return `longer than ${MAX_EMAIL_LENGTH} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(email)) return 'contains a control character (CR, LF, ...)';
  const at = email.lastIndexOf('@');
  if (at <= 0) return 'is not of the form local@domain';
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (local.length > 64 || !LOCAL.test(local)) return 'has an invalid local part';
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return 'has an invalid domain';
  return null;
}
