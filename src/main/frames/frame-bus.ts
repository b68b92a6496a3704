// FrameBus: each match's frames, from its owner (the shard output) to the broadcast listeners
// whose overlays watch the match. The owner publishes each frame once (one per match per
// broadcast cycle: its frame text and its delta against the match's previous frame); a listener
// subscribes to a group code while an overlay watches it; the latest frame of each live match is
// kept for overlays that log on mid-match (history of one: every frame is a full state).
//
// What it carries are values: a published Frame is never changed (every field read-only), as
// Centrifuge's hub never changes a publication after broadcast. A publication is the frame (the value
// the bus keeps as the match's latest) and its delta (for this broadcast only: the bus keeps none).
// The forms a recipient makes from them (WebSocket messages, a keyframe) belong to the recipient
// (broadcast/frame-packet.ts).
//
// A frame from a local shard may come without its text (the shard keeps it). "This frame's text" is
// then a message of its own, a FrameText, on the same bus: a recipient that needs it asks
// (`askFrameText`: at once when the bus has it), the FrameTextSource of the process (the shards:
// matches/frame-texts.ts) makes it, its maker publishes it (`publishFrameText`), and the bus keeps it
// with the channel's latest frame and delivers it to the code's text listeners.
//
// Per-match channels: a subscriber gets the codes it subscribed to only (Redis: SSUBSCRIBE per
// code, so a node gets only the matches its overlays watch). Fenced: `open` records the owner's
// epoch and frames of a lower epoch are dropped (a stale owner's frames never reach an overlay).
//
// `publish` is the per-frame path: synchronous, and in-process a direct call into the subscriber.
// Adapters: frames/adapters/memory/frame-bus.ts, frames/adapters/redis/frame-bus.ts. Contract:
// test/main/frames/frame-bus.contract.ts.

/**
 * One published match_data frame: a value, read-only once published. Every publisher writes the
 * fields in this order (one object shape on the per-frame path).
 */
export interface Frame {
  readonly groupCode: string;
  /** Frame number within the match's stream; its publication's delta applies to a receiver that has `frameNo - 1`. */
  readonly frameNo: number;
  /** The owner's epoch (MatchDirectory): frames of a lower one than the match's channel are dropped. */
  readonly epoch: number;
  /**
   * The frame text: the WebSocket message, 42["match_data","<escaped JSON>"]; null when it stayed in
   * the shard that made the frame (then it comes as a FrameText once asked for: `askFrameText`).
   * A frame a watching node rebuilt makes it when read, and has none once two newer frames reused
   * its bytes (frames/adapters/redis/frame-received.ts).
   */
  readonly frameText: string | null;
}

/** The text of a frame published without it: a message of its own, from the frame's maker. */
export interface FrameText {
  readonly groupCode: string;
  readonly frameNo: number;
  readonly frameText: string;
}

/**
 * A frame to a subscriber, with its delta: the permessage-deflate delta against frame `frameNo - 1`,
 * its bytes as a latin1 string (how it crossed from the shard), or null (a keyframe). The delta is
 * this broadcast's only: a recipient that keeps the frame lets it go once its deliveries are done.
 */
export type FrameListener = (frame: Frame, delta: string | null) => void;
/** The texts of a code's frames published without them, as their maker publishes them. */
export type FrameTextListener = (text: FrameText) => void;

/** Who makes the texts of frames published without them (this process's shards), and learns they are used. */
export interface FrameTextSource {
  /** A recipient needs `frame`'s text: it comes as a FrameText (publishFrameText), unless a newer frame makes it moot. */
  ask(frame: Frame): void;
  /**
   * A recipient used the frame's text (once per frame is enough); `continuous`: one that needs every
   * frame's text (plain or polling), not only a keyframe now.
   */
  used(frame: Frame, continuous: boolean): void;
}

export interface FrameBus {
  /** A match starts, or is rebuilt, under an owner epoch: its latest frame is kept from now on. */
  open(groupCode: string, epoch: number): void;
  /**
   * One frame to every subscriber of its code, kept as the match's latest while its channel is
   * open; dropped when its epoch is lower than the channel's.
   */
  publish(frame: Frame, delta: string | null): void;
  /** Frames of `groupCode` to `listener` (and their texts published later to `onText`) until the returned function is called. */
  subscribe(groupCode: string, listener: FrameListener, onText?: FrameTextListener): () => void;
  /** The latest frame of a live match, or undefined. */
  latest(groupCode: string): Frame | undefined;
  /** The match is gone: its latest frame is dropped (subscribers stay: an overlay keeps its code). */
  end(groupCode: string): void;
  /**
   * Scale-out: this process no longer owns the match (another node took it over) but it is not
   * gone: nothing is published for it from here; a shared adapter delivers the new owner's frames
   * to this process's subscribers. In one process it never happens (nothing to do).
   */
  disown(groupCode: string): void;
  /**
   * A frame's text: at once when the bus has it (the frame's own, or the text its maker published
   * for the channel's latest frame), else null, and the FrameTextSource is asked: the text comes to
   * the code's text listeners.
   */
  askFrameText(frame: Frame): string | null;
  /** A recipient used a frame's text (FrameTextSource.used). */
  frameTextUsed(frame: Frame, continuous: boolean): void;
  /** The text of a frame published without it, from its maker: kept with the channel's latest frame, delivered to the code's text listeners. */
  publishFrameText(text: FrameText): void;
  /** Who makes this process's frame texts (set once, by the composition root, when the shards are up). */
  setFrameTextSource(source: FrameTextSource): void;
  /** The process stops: every channel and subscription goes (a shared adapter's connection stays open). */
  close(): void;
}
