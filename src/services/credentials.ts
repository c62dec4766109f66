// Secrets are made here and only their hashes are stored. A signing secret is never stored
// at all: it is derived from the server's master key and the public key_id.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyKind } from '../store/types.js';

export const KEY_PREFIX: Record<KeyKind, string> = { live: 'live_', trial: 'trial_', test: 'pk_test_' };

export function newApiKey(kind: KeyKind): string {
  return KEY_PREFIX[kind] + randomBytes(24).toString('base64url');
}

export function keyKindOf(key: string): KeyKind | null {
  if (key.startsWith('live_')) return 'live';
  if (key.startsWith('trial_')) return 'trial';
  if (key.startsWith('pk_test_')) return 'test';
  return null;
}

export function newId(prefix: string, bytes = 12): string {
  return prefix + randomBytes(bytes).toString('base64url');
}

export function newSessionToken(): string {
  return 'sess_' + randomBytes(32).toString('base64url');
}

/** SHA-256 is enough: keys and tokens carry 192+ random bits, so no dictionary applies. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export function signingSecretFor(masterKey: Buffer, keyId: string): string {
  return 'sk_' + createHmac('sha256', masterKey).update('signing:' + keyId).digest('base64url');
}

export function hmacHex(secret: string, message: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(message, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex strings (false when lengths differ). */
export function safeEqualHex(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  if (ab.length !== bb.length) return false;
  return timingSafeEqual(ab, bb);
}

/**
 * What is stored about a client's address (trial signups, open-endpoint windows): an HMAC keyed
 * with the master key, so the table alone cannot be reversed by hashing all 2^32 IPv4 addresses.
 * `purpose` keeps the uses apart.
 */
export function addressHash(masterKey: Buffer, purpose: string, clientKey: string): string {
  return createHmac('sha256', masterKey).update(`${purpose}:${clientKey}`, 'utf8').digest('hex');
}
