// FrameBus on Redis (ports/frame-bus.ts). Local delivery is the memory adapter's: a frame published
// on this node goes straight to this node's subscribers (the owner's own frontends never wait for
// Redis), and the latest frame of each channel this node opened is kept.
//
// Across nodes, once per frame per match (never per frontend): the owner (the node that opened the
// code) SPUBLISHes each frame on framesChannel(code) as a compact binary message,
//
//   byte 0      kind: 'D' (0x44) delta, 'K' (0x4b) keyframe, 'X' (0x58) channel closed
//   bytes 1-6   owner epoch, unsigned 48-bit big-endian
//   bytes 7-10  frameNo, unsigned 32-bit big-endian
//   bytes 11-   payload: 'D' the permessage-deflate delta against frame frameNo - 1 (the shard's
//               bytes, a few hundred), 'K' the frame's wire text (UTF-8), 'X' nothing
//
// so a frame costs ~270 bytes through Redis rather than its ~15 KB. A node whose frontends watch a
// code it does not own SSUBSCRIBEs to the code's frames channel while it has listeners, asks the
// owner for a keyframe once subscribed (a 'R' byte on ownerChannel(code), which the owner answers
// with its latest frame as 'K', at most once per ANSWER_INTERVAL_MS), and rebuilds every following
// frame from the delta and the frame before it (inflateDelta below): its frontends get the same
// delta bytes as the owner's. A gap, a delta without its base (joined mid-stream, a new owner) or a
// delta that does not decode is dropped and a keyframe asked for (at most once per
// REQUEST_INTERVAL_MS); frames of a lower epoch than the code's are dropped (a stale owner); a
// higher epoch (a new owner after a takeover) is taken from its first 'K'. 'X' drops the latest.
//
// Redis unreachable: local delivery goes on, publishing fails and is counted (stats), and when
// Redis is back (conn.onStatus) every watched code asks for a keyframe again and every owner sends
// its latest frames as keyframes (whichever node is back last, its message finds the other
// subscribed).
import { isAscii } from 'node:buffer';
import zlib from 'node:zlib';
import { FramePacket } from '../../frame-packet.js';
import type { Logger } from '../../log.js';
import type { FrameBus, FrameListener } from '../../ports/frame-bus.js';
import type { RedisConnection } from './connection.js';
import { OWNER_MESSAGE } from './keys.js';
import { FrameListeners } from '../frame-listeners.js';
import { fixedLiteralCode, reverseBits } from '../../../protocol/fixed-huffman.js';

export const FRAME_KIND = { delta: 0x44, keyframe: 0x4b, closed: 0x58 } as const;
/** kind + epoch + frameNo. */
export const FRAME_HEADER_BYTES = 11;
/** An owner answers keyframe requests for a match at most this often. */
export const ANSWER_INTERVAL_MS = 100;
/** A watching node asks for a keyframe of a match at most this often (gaps, missing bases). */
export const REQUEST_INTERVAL_MS = 200;
const KEYFRAME_REQUEST = Buffer.from([OWNER_MESSAGE.keyframeRequest]);
const MAX_EPOCH = 2 ** 48 - 1;

export interface RedisFrameBusStats {
  /** Frames this node sent through Redis as a match's owner ('D' + 'K', keyframe answers included). */
  framesPublished: number;
  deltasPublished: number;
  keyframesPublished: number;
  /** Keyframes sent in answer to a request. */
  keyframesAnswered: number;
  /** Bytes of the messages this node published (frames, 'X', keyframe requests). */
  bytesPublished: number;
  /** Publishes that could not be handed to Redis or that Redis refused (Redis unreachable). */
  publishFailed: number;
  /** Frames from other nodes delivered to this node's listeners. */
  framesReceived: number;
  keyframesRequested: number;
  keyframesReceived: number;
  /** Deltas whose frameNo was not the next one (frames lost on the way). */
  gaps: number;
  /** Deltas without a base to apply to (joined mid-stream, a new owner): a keyframe is asked for. */
  noBase: number;
  /** Frames of a lower epoch than the code's (a stale owner), and repeated frames. */
  droppedStale: number;
  /** Deltas that did not decode against their base. */
  badDeltas: number;
}

interface Owned {
  epoch: number;
  latest: FramePacket | undefined;
  requests: { unsubscribe: () => void };
  lastAnswerAt: number;
  answerTimer: NodeJS.Timeout | null;
}

interface Watch {
  sub: { unsubscribe: () => void } | null;
  /** Epoch of the stream followed; -1 before the first frame. */
  epoch: number;
  frameNo: number;
  /** The last frame's wire bytes: what the next delta applies to. */
  base: Buffer | null;
  latest: FramePacket | undefined;
  lastRequestAt: number;
}

export class RedisFrameBus implements FrameBus {
  readonly stats: RedisFrameBusStats = {
    framesPublished: 0, deltasPublished: 0, keyframesPublished: 0, keyframesAnswered: 0, bytesPublished: 0, publishFailed: 0,
    framesReceived: 0, keyframesRequested: 0, keyframesReceived: 0, gaps: 0, noBase: 0, droppedStale: 0, badDeltas: 0,
  };
  private readonly log: Logger;
  /** Codes this node opened (runs). */
  private readonly owned = new Map<string, Owned>();
  /** Codes this node has listeners for and does not own: followed through Redis. */
  private readonly watches = new Map<string, Watch>();
  /** This node's frame listeners (its broadcast listener's frontends), by code. */
  private readonly listeners = new FrameListeners();
  private readonly offStatus: () => void;
  private readonly onPublished = (ok: boolean) => { if (!ok) this.stats.publishFailed++; };

  constructor(private readonly conn: RedisConnection, options: { log: Logger }) {
    this.log = options.log.child({ module: 'frame-bus' });
    this.offStatus = conn.onStatus((up) => {
      if (!up) return;
      // Frames published meanwhile were lost: whichever side comes back last brings the watchers
      // up to date (the owner's keyframe, or the watcher's request).
      for (const [code, owned] of this.owned) this.onKeyframeRequest(code, owned);
      for (const [code, watch] of this.watches) this.requestKeyframe(code, watch, true);
    });
  }

  open(groupCode: string, epoch: number): void {
    const owned = this.owned.get(groupCode);
    if (owned) {
      if (epoch > owned.epoch) owned.epoch = epoch;
      return;
    }
    const o: Owned = { epoch, latest: undefined, requests: { unsubscribe: () => undefined }, lastAnswerAt: -Infinity, answerTimer: null };
    o.requests = this.conn.subscribe(this.conn.keys.ownerChannel(groupCode), (message) => {
      if (message[0] === OWNER_MESSAGE.keyframeRequest && this.owned.get(groupCode) === o) this.onKeyframeRequest(groupCode, o);
    }, true);
    this.owned.set(groupCode, o);
    this.reconcile(groupCode);
  }

  publish(frame: FramePacket): void {
    const owned = this.owned.get(frame.groupCode);
    if (owned) {
      if (frame.epoch < owned.epoch) return; // a stale owner's frame
      owned.latest = frame;
    }
    this.listeners.deliver(frame);
    if (owned) this.sendFrame(frame, frame.deltaText !== null ? FRAME_KIND.delta : FRAME_KIND.keyframe);
  }

  subscribe(groupCode: string, listener: FrameListener): () => void {
    return this.listeners.add(groupCode, listener, () => this.reconcile(groupCode));
  }

  latest(groupCode: string): FramePacket | undefined {
    return this.owned.get(groupCode)?.latest ?? this.watches.get(groupCode)?.latest;
  }

  close(groupCode: string): void {
    const owned = this.owned.get(groupCode);
    if (owned) {
      this.owned.delete(groupCode);
      owned.requests.unsubscribe();
      if (owned.answerTimer) clearTimeout(owned.answerTimer);
      this.publishRaw(this.conn.keys.framesChannel(groupCode), header(FRAME_KIND.closed, owned.epoch, 0, 0));
      this.reconcile(groupCode); // frontends here keep the code: a later owner is followed through Redis
      return;
    }
    const watch = this.watches.get(groupCode);
    if (watch) {
      watch.latest = undefined;
      watch.base = null;
    }
  }

  /** Another node owns the match now: nothing is published from here; this node's frontends follow the new owner through Redis. */
  disown(groupCode: string): void {
    const owned = this.owned.get(groupCode);
    if (!owned) return;
    this.owned.delete(groupCode);
    owned.requests.unsubscribe();
    if (owned.answerTimer) clearTimeout(owned.answerTimer);
    this.reconcile(groupCode);
  }

  /** Stops following every code and answering keyframe requests (the connection stays open). */
  dispose(): void {
    this.offStatus();
    for (const [code, o] of this.owned) {
      o.requests.unsubscribe();
      if (o.answerTimer) clearTimeout(o.answerTimer);
      this.owned.delete(code);
    }
    for (const code of [...this.watches.keys()]) this.stopWatch(code);
    this.listeners.clear();
  }

  /**
   * One message of a watched code's frames channel (public for the benchmark: the receiving side's
   * work without the Redis client's).
   */
  receive(groupCode: string, message: Buffer): void {
    const watch = this.watches.get(groupCode);
    if (!watch || message.length < FRAME_HEADER_BYTES) return;
    const kind = message[0];
    const epoch = message.readUIntBE(1, 6);
    const frameNo = message.readUInt32BE(7);
    if (epoch < watch.epoch) {
      this.stats.droppedStale++;
      if (!watch.base) this.requestKeyframe(groupCode, watch, false);
      return;
    }
    let packet: FramePacket;
    let wire: Buffer;
    if (kind === FRAME_KIND.delta) {
      if (epoch !== watch.epoch || watch.base === null) {
        this.stats.noBase++;
        this.requestKeyframe(groupCode, watch, false);
        return;
      }
      if (frameNo !== watch.frameNo + 1) {
        if (frameNo <= watch.frameNo) {
          this.stats.droppedStale++;
        } else {
          this.stats.gaps++;
          this.requestKeyframe(groupCode, watch, false);
        }
        return;
      }
      const delta = message.subarray(FRAME_HEADER_BYTES);
      try {
        wire = inflateDelta(watch.base, delta);
      } catch (err) {
        this.stats.badDeltas++;
        this.log.warn({ groupCode, frameNo, error: (err as Error).message }, 'frame delta does not decode; asking for a keyframe');
        watch.base = null;
        this.requestKeyframe(groupCode, watch, false);
        return;
      }
      packet = new FramePacket(groupCode, frameNo, wireString(wire), delta.toString('latin1'), epoch);
    } else if (kind === FRAME_KIND.keyframe) {
      if (epoch === watch.epoch && watch.base !== null && frameNo <= watch.frameNo) {
        if (frameNo < watch.frameNo) this.stats.droppedStale++;
        return; // an answer to another node's request: this node has it already
      }
      wire = Buffer.from(message.subarray(FRAME_HEADER_BYTES)); // a copy: the message's buffer may be a larger read
      packet = new FramePacket(groupCode, frameNo, wireString(wire), null, epoch);
      this.stats.keyframesReceived++;
      watch.lastRequestAt = -Infinity; // answered: the next gap asks at once
    } else if (kind === FRAME_KIND.closed) {
      watch.epoch = epoch;
      watch.base = null;
      watch.latest = undefined;
      return;
    } else {
      return;
    }
    watch.epoch = epoch;
    watch.frameNo = frameNo;
    watch.base = wire;
    watch.latest = packet;
    this.stats.framesReceived++;
    this.listeners.deliver(packet, (err) => this.log.error({ groupCode, error: (err as Error).message }, 'frame listener failed'));
  }

  /** Watch a code iff it has listeners here and is not run here. */
  private reconcile(groupCode: string): void {
    const want = this.listeners.has(groupCode) && !this.owned.has(groupCode);
    const watching = this.watches.has(groupCode);
    if (want && !watching) this.startWatch(groupCode);
    else if (!want && watching) this.stopWatch(groupCode);
  }

  private startWatch(groupCode: string): void {
    const watch: Watch = { sub: null, epoch: -1, frameNo: 0, base: null, latest: undefined, lastRequestAt: -Infinity };
    this.watches.set(groupCode, watch);
    const sub = this.conn.subscribe(this.conn.keys.framesChannel(groupCode), (message) => this.receive(groupCode, message), true);
    watch.sub = sub;
    // Subscribed (Redis confirmed): from now on every frame arrives; the owner's latest is the base.
    // Not forced: frames that arrived before the confirmation (published just before) may have
    // asked already, and one answer serves both.
    void sub.then(() => {
      if (this.watches.get(groupCode) === watch && watch.base === null) this.requestKeyframe(groupCode, watch, false);
    });
  }

  private stopWatch(groupCode: string): void {
    const watch = this.watches.get(groupCode);
    if (!watch) return;
    this.watches.delete(groupCode);
    watch.sub?.unsubscribe();
  }

  private requestKeyframe(groupCode: string, watch: Watch, force: boolean): void {
    const now = performance.now();
    if (!force && now - watch.lastRequestAt < REQUEST_INTERVAL_MS) return;
    watch.lastRequestAt = now;
    this.stats.keyframesRequested++;
    this.publishRaw(this.conn.keys.ownerChannel(groupCode), KEYFRAME_REQUEST);
  }

  private onKeyframeRequest(groupCode: string, owned: Owned): void {
    if (owned.answerTimer) return; // an answer is on its way
    const wait = owned.lastAnswerAt + ANSWER_INTERVAL_MS - performance.now();
    if (wait <= 0) return this.answer(groupCode, owned);
    owned.answerTimer = setTimeout(() => {
      owned.answerTimer = null;
      if (this.owned.get(groupCode) === owned) this.answer(groupCode, owned);
    }, wait);
    owned.answerTimer.unref();
  }

  private answer(groupCode: string, owned: Owned): void {
    owned.lastAnswerAt = performance.now();
    const latest = owned.latest;
    if (!latest) return; // no frame yet: the first one goes as a keyframe anyway
    if (!latest.hasText) {
      // Its text is in the shard (matches/frame-texts.ts): answered once it is here, or with a newer frame.
      latest.whenText(() => { if (this.owned.get(groupCode) === owned && !owned.answerTimer) this.answer(groupCode, owned); });
      return;
    }
    this.stats.keyframesAnswered++;
    this.sendFrame(latest, FRAME_KIND.keyframe);
  }

  private sendFrame(frame: FramePacket, kind: number): void {
    let message: Buffer;
    try {
      if (kind === FRAME_KIND.delta) {
        const delta = frame.deltaText!;
        message = header(kind, frame.epoch, frame.frameNo, delta.length);
        message.write(delta, FRAME_HEADER_BYTES, 'latin1');
        this.stats.deltasPublished++;
      } else {
        const length = Buffer.byteLength(frame.wireText);
        message = header(kind, frame.epoch, frame.frameNo, length);
        message.write(frame.wireText, FRAME_HEADER_BYTES, 'utf8');
        this.stats.keyframesPublished++;
      }
    } catch (err) {
      this.stats.publishFailed++;
      this.log.error({ groupCode: frame.groupCode, error: (err as Error).message }, 'frame not encodable for Redis');
      return;
    }
    this.stats.framesPublished++;
    this.publishRaw(this.conn.keys.framesChannel(frame.groupCode), message);
  }

  private publishRaw(channel: string, message: Buffer): void {
    if (this.conn.cmd.status !== 'ready') {
      this.stats.publishFailed++;
      return;
    }
    this.stats.bytesPublished += message.length;
    this.conn.publish(channel, message, true).then(this.onPublished);
  }
}

/** A frame's text from its UTF-8 bytes (frames are mostly ASCII: a plain copy then, ~3× cheaper). */
function wireString(wire: Buffer): string {
  return wire.toString(isAscii(wire) ? 'latin1' : 'utf8');
}

/** A frames-channel message with room for `payload` bytes after the header. */
function header(kind: number, epoch: number, frameNo: number, payload: number): Buffer {
  const message = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload);
  message[0] = kind;
  message.writeUIntBE(epoch > MAX_EPOCH ? MAX_EPOCH : epoch < 0 ? 0 : epoch, 1, 6);
  message.writeUInt32BE(frameNo >>> 0, 7);
  return message;
}

// --- Rebuilding a frame from its delta ------------------------------------------------------------
//
// zlib.inflateRawSync(delta + 00 00 ff ff, { dictionary: base }) gives the same bytes but costs
// ~90 µs a frame (a zlib stream made and torn down per call); the shard's deltas
// (workers/deflate-delta.ts) are fixed-Huffman blocks whose back-references point into the previous
// frame, which this decodes in a few µs with native copies of the referenced runs. Other block
// types (dynamic Huffman: a delta from some other encoder) go to zlib.

const INFLATE_TAIL = Buffer.from([0x00, 0x00, 0xff, 0xff]);
const WINDOW = 32_768;
/** Largest frame rebuilt (a bound on what a malformed delta can make us allocate). */
const MAX_OUTPUT = 16 * 1024 * 1024;

/** Fixed literal/length codes by their next 9 input bits (LSB first): symbol << 4 | code length. */
const FIXED_LIT = new Uint16Array(512);
for (let v = 0; v < 288; v++) {
  const { code, len } = fixedLiteralCode(v);
  for (let k = reverseBits(code, len); k < 512; k += 1 << len) FIXED_LIT[k] = (v << 4) | len;
}
const FIXED_DIST = new Uint8Array(32);
for (let c = 0; c < 32; c++) FIXED_DIST[reverseBits(c, 5)] = c;
const LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];

class Unsupported extends Error {}

/**
 * The message a permessage-deflate receiver whose last inflated message was `base` gets from
 * `delta` (one or more non-final deflate blocks, the 00 00 ff ff tail stripped). Throws when the
 * delta is malformed.
 */
export function inflateDelta(base: Buffer, delta: Buffer): Buffer {
  const dict = base.length > WINDOW ? base.subarray(base.length - WINDOW) : base;
  try {
    return inflateFixed(dict, delta);
  } catch (err) {
    if (!(err instanceof Unsupported)) throw err;
    return inflateDeltaZlib(dict, delta);
  }
}

/** The same with zlib (any block type). */
export function inflateDeltaZlib(base: Buffer, delta: Buffer): Buffer {
  const dict = base.length > WINDOW ? base.subarray(base.length - WINDOW) : base;
  return zlib.inflateRawSync(Buffer.concat([delta, INFLATE_TAIL]), { dictionary: dict, finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: MAX_OUTPUT });
}

// The decode pass records what to copy (ops) and the literal bytes; the output, allocated at its
// exact size, is then written with native copies.
const OP_DICT = 0; // a, len: bytes dict[a..a+len)
const OP_LITERALS = 1; // a, len: bytes literals[a..a+len)
const OP_SELF = 2; // a, len: bytes out[a..] (may overlap the destination: byte by byte)
const OP_STORED = 3; // a, len: bytes input[a..a+len)
let ops = new Int32Array(3 * 256);
let literals = new Uint8Array(4096);

function inflateFixed(dict: Buffer, input: Buffer): Buffer {
  const dictLen = dict.length;
  const inLen = input.length;
  let nOps = 0; // ints used in ops
  let nLit = 0;
  let op = 0; // output length so far
  let ip = 0; // next input byte
  let bits = 0; // bit buffer, LSB first
  let count = 0; // bits in the buffer
  let padded = 0; // zero bits added past the end of the input

  const need = (n: number) => {
    while (count < n) {
      if (ip < inLen) bits |= input[ip++] << count;
      else padded += 8;
      count += 8;
    }
  };
  const add = (kind: number, a: number, len: number) => {
    if (len === 0) return;
    if (nOps > 0 && ops[nOps - 3] === kind && kind !== OP_SELF && ops[nOps - 2] + ops[nOps - 1] === a) {
      ops[nOps - 1] += len; // continues the previous copy (a run split into ≤ 258-byte codes)
    } else {
      if (nOps + 3 > ops.length) { const bigger = new Int32Array(ops.length * 2); bigger.set(ops); ops = bigger; }
      ops[nOps++] = kind;
      ops[nOps++] = a;
      ops[nOps++] = len;
    }
    op += len;
    if (op > MAX_OUTPUT) throw new Error('frame delta: output too large');
  };

  for (;;) {
    // Only padding left: the end of the message.
    if (ip >= inLen && count - padded < 3) break;
    need(3);
    const btype = (bits >>> 1) & 3;
    const final = bits & 1;
    bits >>>= 3;
    count -= 3;
    if (btype === 1) {
      for (;;) {
        need(9);
        const entry = FIXED_LIT[bits & 511];
        const len = entry & 15;
        bits >>>= len;
        count -= len;
        const sym = entry >> 4;
        if (sym < 256) {
          if (nLit === literals.length) { const bigger = new Uint8Array(literals.length * 2); bigger.set(literals); literals = bigger; }
          literals[nLit] = sym;
          add(OP_LITERALS, nLit++, 1);
          continue;
        }
        if (sym === 256) break;
        const li = sym - 257;
        if (li > 28) throw new Error('frame delta: bad length code');
        let length = LEN_BASE[li];
        if (LEN_EXTRA[li]) { need(LEN_EXTRA[li]); length += bits & ((1 << LEN_EXTRA[li]) - 1); bits >>>= LEN_EXTRA[li]; count -= LEN_EXTRA[li]; }
        need(5);
        const di = FIXED_DIST[bits & 31];
        bits >>>= 5;
        count -= 5;
        if (di > 29) throw new Error('frame delta: bad distance code');
        let distance = DIST_BASE[di];
        if (DIST_EXTRA[di]) { need(DIST_EXTRA[di]); distance += bits & ((1 << DIST_EXTRA[di]) - 1); bits >>>= DIST_EXTRA[di]; count -= DIST_EXTRA[di]; }
        if (distance > op + dictLen) throw new Error('frame delta: distance too far back');
        if (distance > op) {
          // Starts in the previous frame.
          const inDict = Math.min(length, distance - op);
          add(OP_DICT, dictLen - (distance - op), inDict);
          if (length > inDict) add(OP_SELF, 0, length - inDict); // then continues from the output's start
        } else {
          add(OP_SELF, op - distance, length);
        }
      }
    } else if (btype === 0) {
      const drop = count & 7; // to the byte boundary
      bits >>>= drop;
      count -= drop;
      if (padded > count) throw new Error('frame delta: truncated');
      // What is left of the input, from the byte boundary.
      const at = ip - ((count - padded) >> 3);
      if (inLen - at < 4) break; // the stripped 00 00 ff ff of the sync flush: the end
      const len = input[at] | (input[at + 1] << 8);
      const nlen = input[at + 2] | (input[at + 3] << 8);
      if ((len ^ 0xffff) !== nlen) throw new Error('frame delta: bad stored block');
      if (at + 4 + len > inLen) throw new Error('frame delta: truncated stored block');
      add(OP_STORED, at + 4, len);
      ip = at + 4 + len;
      bits = 0;
      count = 0;
      padded = 0;
    } else {
      throw new Unsupported(btype === 2 ? 'dynamic Huffman block' : 'reserved block type');
    }
    if (padded > count) throw new Error('frame delta: truncated');
    if (final) break;
  }
  if (padded > count) throw new Error('frame delta: truncated');

  const out = Buffer.allocUnsafe(op);
  let at = 0;
  for (let k = 0; k < nOps; k += 3) {
    const kind = ops[k];
    const a = ops[k + 1];
    const len = ops[k + 2];
    if (kind === OP_DICT) {
      dict.copy(out, at, a, a + len);
    } else if (kind === OP_LITERALS) {
      if (len === 1) out[at] = literals[a];
      else out.set(literals.subarray(a, a + len), at);
    } else if (kind === OP_STORED) {
      input.copy(out, at, a, a + len);
    } else if (at - a >= len) {
      out.copy(out, at, a, a + len);
    } else {
      for (let q = 0; q < len; q++) out[at + q] = out[a + q];
    }
    at += len;
  }
  return out;
}
