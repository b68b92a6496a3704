// FrameBus: each match's frames, from its owner (the shard output) to the broadcast listeners
// whose frontends watch the match. The owner publishes each frame once (one per match per
// broadcast cycle: its wire text and its delta against the match's previous frame); a listener
// subscribes to a group code while a frontend watches it; the latest frame of each live match is
// kept for frontends that log on mid-match (history of one: every frame is a full state).
//
// Per-match channels: a subscriber gets the codes it subscribed to only (Redis: SSUBSCRIBE per
// code, so a node gets only the matches its frontends watch). Fenced: `open` records the owner's
// epoch and frames of a lower epoch are dropped (a stale owner's frames never reach a frontend).
//
// `publish` is the per-frame path: synchronous, and in-process a direct call into the subscriber.
// Adapters: adapters/memory/frame-bus.ts. Contract: test/contracts/frame-bus.contract.ts.
import type { FramePacket } from '../frame-packet.js';

export type FrameListener = (frame: FramePacket) => void;

export interface FrameBus {
  /** A match starts, or is rebuilt, under an owner epoch: its latest frame is kept from now on. */
  open(groupCode: string, epoch: number): void;
  /**
   * One frame to every subscriber of its code, kept as the match's latest while its channel is
   * open; dropped when its epoch is lower than the channel's.
   */
  publish(frame: FramePacket): void;
  /** Frames of `groupCode` to `listener` until the returned function is called. */
  subscribe(groupCode: string, listener: FrameListener): () => void;
  /** The latest frame of a live match, or undefined. */
  latest(groupCode: string): FramePacket | undefined;
  /** The match is gone: its latest frame is dropped (subscribers stay: a frontend keeps its code). */
  close(groupCode: string): void;
  /**
   * Scale-out: this process no longer owns the match (another node took it over) but it is not
   * gone: nothing is published for it from here; a shared adapter delivers the new owner's frames
   * to this process's subscribers. In one process it never happens (nothing to do).
   */
  disown(groupCode: string): void;
}
