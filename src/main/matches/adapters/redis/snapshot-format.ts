// How a snapshot is stored in its Redis hash (snapshot-store.ts): a changing match writes one a
// second, and most of one second's snapshot is the previous one's text. So the hash holds a `base`
// (a snapshot's JSON, deflated, under a base id) written every BASE_EVERY puts, and `data`, which is
// either "the base itself" or the snapshot deflated with the base's JSON as zlib's preset dictionary
// (a delta: ~1 kB where the whole is ~3.5 kB; `npx tsx bench/snapshot-delta-size.ts`,
// docs/benchmarks.md, issue 20). A delta names its base's id; a reader that finds another base
// (it cannot happen with the fenced, ordered writes, but a reader never trusts it) treats the
// snapshot as unreadable. `data` written by earlier versions (deflated with ../snapshot-codec.ts, or
// plain JSON) reads as before.
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { unpackText } from '../../snapshot-codec.js';

/** A base is written every this many puts of a match (and at a new owner's first). */
export const BASE_EVERY = 10;

const IS_BASE = 0x04; // data: the snapshot is the base field
const DELTA = 0x02; // data: [DELTA, id u32, deflated with the base as dictionary]
const BASE = 0x03; // base: [BASE, id u32, deflated JSON]

/** `data` of a put whose snapshot is the base written with it. */
export const DATA_IS_BASE = Buffer.from([IS_BASE]);

export function encodeBase(id: number, json: Buffer): Buffer {
  const head = Buffer.allocUnsafe(5);
  head[0] = BASE;
  head.writeUInt32BE(id, 1);
  return Buffer.concat([head, deflateRawSync(json, { level: 1 })]);
}

export function encodeDelta(id: number, json: Buffer, base: Buffer): Buffer {
  const head = Buffer.allocUnsafe(5);
  head[0] = DELTA;
  head.writeUInt32BE(id, 1);
  return Buffer.concat([head, deflateRawSync(json, { level: 1, dictionary: base })]);
}

/** The snapshot's JSON from the hash's `data` and `base`; throws when it cannot be read. */
export function decodeStored(data: Buffer, base: Buffer | null): string {
  if (data[0] === IS_BASE || data[0] === DELTA) {
    if (base === null || base[0] !== BASE) throw new Error('snapshot base missing');
    const baseJson = inflateRawSync(base.subarray(5));
    if (data[0] === IS_BASE) return baseJson.toString('utf8');
    if (data.readUInt32BE(1) !== base.readUInt32BE(1)) throw new Error('snapshot delta of another base');
    return inflateRawSync(data.subarray(5), { dictionary: baseJson }).toString('utf8');
  }
  return unpackText(data);
}
