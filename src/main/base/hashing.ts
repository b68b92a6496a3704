// SHA-256, the one digest of the main thread: group secrets, access keys, admin tokens, session
// ids and STATE_DIR file names are kept or compared as digests, never in clear. Digests of secrets
// are compared in constant time (digestEquals), so neither their content nor their length leaks.
import crypto from 'node:crypto';

// crypto.hash (Node ≥ 20.12): one call, no Hash object; a third cheaper per access key checked
// (docs/perf/rest.md). The engines field also allows older 20.x, which keep createHash.
const oneShot = typeof crypto.hash === 'function' ? crypto.hash : undefined;

/** SHA-256 of the text's UTF-8 bytes. */
export const sha256 = oneShot
  ? (text: string): Buffer => oneShot('sha256', text, 'buffer')
  : (text: string): Buffer => crypto.createHash('sha256').update(text, 'utf8').digest();

/** SHA-256 of the text's UTF-8 bytes, as 64 lower-case hex digits. */
export const sha256Hex = (text: string): string => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** Constant-time equality of two digests (false, without comparing, when their lengths differ). */
export function digestEquals(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}
