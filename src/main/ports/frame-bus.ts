// FrameBus: each match's frames, from its owner (the shard output) to the broadcast listeners
// whose frontends watch the match. The owner publishes each frame once (one per match per
// broadcast cycle: its wire text and its delta against the match's previous frame); a listener
// subscribes to a group code while a frontend watches it; the latest frame of each live match is
// kept for frontends that log on mid-match (history of one: every frame is a full state).
//
// What it carries is a plain record (Frame): the forms a recipient makes from it (WebSocket
// messages, a keyframe) belong to the recipient (broadcast/frame-packet.ts). A frame from a local
// shard may come without its text (the shard keeps it): whoever needs it asks the FrameTextSource
// the composition root hands it (matches/frame-texts.ts).
//
// Per-match channels: a subscriber gets the codes it subscribed to only (Redis: SSUBSCRIBE per
// code, so a node gets only the matches its frontends watch). Fenced: `open` records the owner's
// epoch and frames of a lower epoch are dropped (a stale owner's frames never reach a frontend).
//
// `publish` is the per-frame path: synchronous, and in-process a direct call into the subscriber.
// Adapters: adapters/memory/frame-bus.ts, adapters/redis/frame-bus.ts. Contract:
// test/main/ports/frame-bus.contract.ts.

/**
 * One published match_data frame. Every publisher writes the fields in this order (one object
 * shape on the per-frame path).
 */
export interface Frame {
  readonly groupCode: string;
  /** Frame number within the match's stream; `deltaText` applies to a receiver that has `frameNo - 1`. */
  readonly frameNo: number;
  /** The owner's epoch (MatchDirectory): frames of a lower one than the match's channel are dropped. */
  readonly epoch: number;
  /**
   * The WebSocket message text, 42["match_data","<escaped JSON>"]; null while it is only in the
   * shard that made the frame: the FrameTextSource sets it once asked (FrameTextSource.whenText).
   * A frame a watching node rebuilt makes it when read, and has none once two newer frames reused
   * its bytes (adapters/redis/frame-received.ts).
   */
  wireText: string | null;
  /**
   * The permessage-deflate delta against frame `frameNo - 1`, its bytes as a latin1 string (how it
   * crossed from the shard), or null. The publisher may drop it (null) once it served the
   * deliveries of its publish: a frame kept afterwards (the latest) is then sent as a keyframe.
   */
  deltaText: string | null;
}

/** Where a frame published without its text gets it (the shard that made it), and who learns it is used. */
export interface FrameTextSource {
  /**
   * Calls `cb` once `frame.wireText` is set, or once a newer frame made this one moot (then it is
   * still null); at once when the frame has its text.
   */
  whenText(frame: Frame, cb: () => void): void;
  /**
   * A recipient used the frame's text (once per frame is enough); `continuous`: one that needs every
   * frame's text (plain or polling), not only a keyframe now.
   */
  used(frame: Frame, continuous: boolean): void;
}

export type FrameListener = (frame: Frame) => void;

export interface FrameBus {
  /** A match starts, or is rebuilt, under an owner epoch: its latest frame is kept from now on. */
  open(groupCode: string, epoch: number): void;
  /**
   * One frame to every subscriber of its code, kept as the match's latest while its channel is
   * open; dropped when its epoch is lower than the channel's.
   */
  publish(frame: Frame): void;
  /** Frames of `groupCode` to `listener` until the returned function is called. */
  subscribe(groupCode: string, listener: FrameListener): () => void;
  /** The latest frame of a live match, or undefined. */
  latest(groupCode: string): Frame | undefined;
  /** The match is gone: its latest frame is dropped (subscribers stay: a frontend keeps its code). */
  end(groupCode: string): void;
  /**
   * Scale-out: this process no longer owns the match (another node took it over) but it is not
   * gone: nothing is published for it from here; a shared adapter delivers the new owner's frames
   * to this process's subscribers. In one process it never happens (nothing to do).
   */
  disown(groupCode: string): void;
  /** The process stops: every channel and subscription goes (a shared adapter's connection stays open). */
  close(): void;
}
