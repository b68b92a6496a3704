// What a logon is checked against: the group secret (generated here, given once, kept only as its
// digest, compared in constant time) and the key id a match counts against for MAX_MATCHES_PER_KEY
// (the organisation, or a digest prefix of the access key: never the key).
import crypto from 'node:crypto';
import { digestEquals, sha256, sha256Hex } from '../base/hashing.js';

const SECRET_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

export function generateSecret(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += SECRET_ALPHABET[crypto.randomInt(SECRET_ALPHABET.length)];
  return out;
}

/** The digest a group secret is kept as (hex: the form a shared directory stores). */
export const secretDigest = (secret: string): string => sha256Hex(secret);

/** Whether `candidate` is the secret whose digest is `digestHex` (constant time). */
export function secretMatches(digestHex: string, candidate: unknown): boolean {
  if (typeof candidate !== 'string' || candidate.length === 0) return false;
  return digestEquals(Buffer.from(digestHex, 'hex'), sha256(candidate));
}

/** Which access key (or organisation) a match belongs to, for MAX_MATCHES_PER_KEY: never the key itself. */
export function keyIdOf(key: unknown, organizationId: string | undefined): string {
  if (organizationId) return `org:${organizationId}`;
  return `key:${sha256Hex(typeof key === 'string' ? key : '').slice(0, 24)}`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A logon's tool settings without the player-camera secret (`playercamsInfo.secret`), for what is
 * written to disk (STATE_DIR's creation file): the secret is never written, so a match created
 * again from its logon fetches no cameras, like one restored from a snapshot.
 */
export function withoutCamSecret(toolsData: unknown): unknown {
  if (!isObject(toolsData) || !isObject(toolsData.playercamsInfo) || !('secret' in toolsData.playercamsInfo)) return toolsData;
  const { secret: _secret, ...cams } = toolsData.playercamsInfo;
  return { ...toolsData, playercamsInfo: cams };
}
