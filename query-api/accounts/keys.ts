import { createHash, randomInt, timingSafeEqual } from 'node:crypto';

/** API key format: `<prefix>_live_<32 alphanumerics>`; the first 8 token characters are the public key id. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const TOKEN_LENGTH = 32;
export const KEY_ID_LENGTH = 8;

export interface NewKey {
  /** The full key: shown once, never stored. */
  readonly key: string;
  readonly keyId: string;
  readonly keyHash: string;
}

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function generateKey(prefix: string): NewKey {
  let token = '';
  for (let i = 0; i < TOKEN_LENGTH; i++) token += ALPHABET[randomInt(ALPHABET.length)];
  const key = `${prefix}_live_${token}`;
  return { key, keyId: token.slice(0, KEY_ID_LENGTH), keyHash: hashKey(key) };
}

/**
 * The key id of a well-formed key, or null. Exact match only: surrounding whitespace, another prefix or a
 * wrong length make the value invalid.
 */
export function keyIdOf(prefix: string, value: string): string | null {
  const head = `${prefix}_live_`;
  if (value.length !== head.length + TOKEN_LENGTH || !value.startsWith(head)) return null;
  const token = value.slice(head.length);
  if (!/^[A-Za-z0-9]+$/.test(token)) return null;
  return token.slice(0, KEY_ID_LENGTH);
}

/** Constant-time comparison of two hex SHA-256 digests. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === 32 && y.length === 32 && timingSafeEqual(x, y);
}

/**
 * Constant-time equality of two strings of the same length (for a presented key against one verified before);
 * the running time depends on the length only, never on where the strings differ.
 */
export function sameKey(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
