// Request fields that come under two names (width or w): shared by every chart endpoint.
import { invalidInput } from '../errors.js';

/** A field counts as absent when missing, null or empty (a query parameter given as `w=`). */
export const absent = (v: unknown) => v === undefined || v === null || v === '';

/**
 * A field given under its name or its alias (width or w). Both given with different values is a
 * client mistake (which one was meant?), not a silent choice.
 */
export function pickAlias(fields: Record<string, unknown>, name: string, alias: string): unknown {
  const a = fields[name];
  const b = fields[alias];
  if (absent(a)) return absent(b) ? undefined : b;
  if (!absent(b) && String(a) !== String(b) && !(typeof a === 'object' && typeof b === 'object')) {
    throw invalidInput(`${alias} and ${name} name the same parameter with different values: give one`);
  }
  return a;
}
