// What the Redis FrameBus (frame-bus.ts, frame-watch.ts) sends through Redis, and its counters.
//
// On a match's frames channel (keys.framesChannel, sharded), from its owner, one compact binary
// message per frame:
//
//   byte 0      kind: 'D' (0x44) delta, 'K' (0x4b) keyframe, 'X' (0x58) channel closed
//   bytes 1-6   owner epoch, unsigned 48-bit big-endian
//   bytes 7-10  frameNo, unsigned 32-bit big-endian
//   bytes 11-   payload: 'D' the permessage-deflate delta against frame frameNo - 1 (the shard's
//               bytes, a few hundred), 'K' the frame text (UTF-8), 'X' nothing
//
// On a match's keyframe channel (keys.keyframeChannel, sharded), to its owner: KEYFRAME_REQUEST, a
// watching node asking for the latest frame as 'K' (any message on that channel is one).
import { isAscii } from 'node:buffer';
import type { Frame } from '../../frame-bus.js';

export const FRAME_KIND = { delta: 0x44, keyframe: 0x4b, closed: 0x58 } as const;
/** kind + epoch + frameNo. */
export const FRAME_HEADER_BYTES = 11;
/** 'R': the one message of the keyframe channel. */
export const KEYFRAME_REQUEST = Buffer.from('R');
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

export function newFrameBusStats(): RedisFrameBusStats {
  return {
    framesPublished: 0, deltasPublished: 0, keyframesPublished: 0, keyframesAnswered: 0, bytesPublished: 0, publishFailed: 0,
    framesReceived: 0, keyframesRequested: 0, keyframesReceived: 0, gaps: 0, noBase: 0, droppedStale: 0, badDeltas: 0,
  };
}

/** A frames-channel message with room for `payload` bytes after the header. */
export function frameHeader(kind: number, epoch: number, frameNo: number, payload: number): Buffer {
  const message = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload);
  message[0] = kind;
  message.writeUIntBE(epoch > MAX_EPOCH ? MAX_EPOCH : epoch < 0 ? 0 : epoch, 1, 6);
  message.writeUInt32BE(frameNo >>> 0, 7);
  return message;
}

/** `frame` as a 'D' message (`payload`: its delta) or a 'K' message (`payload`: its frame text, which it must have). */
export function frameMessage(frame: Frame, kind: typeof FRAME_KIND.delta | typeof FRAME_KIND.keyframe, payload: string | null): Buffer {
  if (payload === null) throw new Error(kind === FRAME_KIND.delta ? 'a delta message without its delta' : 'a keyframe without its text');
  if (kind === FRAME_KIND.delta) {
    const message = frameHeader(kind, frame.epoch, frame.frameNo, payload.length);
    message.write(payload, FRAME_HEADER_BYTES, 'latin1');
    return message;
  }
  const message = frameHeader(kind, frame.epoch, frame.frameNo, Buffer.byteLength(payload));
  message.write(payload, FRAME_HEADER_BYTES, 'utf8');
  return message;
}

/** A frame text from its UTF-8 bytes (frames are mostly ASCII: a plain copy then, ~3× cheaper). */
export function frameTextOf(bytes: Buffer): string {
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}
