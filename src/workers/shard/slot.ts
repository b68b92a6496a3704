// One live match in a shard: the engine's Match and the shard's bookkeeping around it. The slot's
// own fields never change after it is made; each mutable part is an object of its own with one
// owner, the one file that writes it (others only read it):
//   sent       shard.ts (sendFrame, sendFrameTexts): the frames sent and the text hold
//   received   apply.ts: the last applied message's receive time
//   inputs     apply.ts: the number of the last input given to the match (the input log's)
//   reported   changes.ts: what the main thread was told (match id, roster size)
//   layout     frames.ts: the last frame's layout, the base of the next delta
//   deadline   deadlines.ts: the heap entry (engine timer, inactivity check, position)
//   summary    summaries.ts; snapshot  snapshots.ts: the stateVersion each last covered (and the
//              snapshot's batch mark for a crash's replay)
//   drops      drops.ts: drop-log keys already logged
//   events     match-events.ts: the match's event deriver (EVENTS_ENABLED)
import type { MatchEventDeriver } from '../events/deriver.js';
import type { Match } from '../match/match.js';
import type { ReplayRecorder } from '../replay-recorder.js';
import type { FrameLayout } from '../wire-serializer.js';

/** Frames sent to the main thread (shard.ts). */
export interface SentFrames {
  /** The stateVersion and wall-clock time of the last frame (leading edge, frame-pacer.ts). */
  event: number;
  at: number;
  /** Wall-clock time of the last frame or creation (inactivity, docs/match-rules.md 14.1). */
  activityAt: number;
  /** The last frame's number. */
  frameNo: number;
  /** Frames up to this number carry their frame text to the main thread (`frame_texts` command); whether the last one did. */
  frameTextsUntil: number;
  frameTextSent: boolean;
  /** The feeds' tables were asked for (`feed_tables`) while a change was not framed yet: they go with the next frame. */
  feedTablesWanted: boolean;
}

/** The last frame's layout (the base of the next delta) and the stateVersion of the state it shows (frames.ts). */
export interface LayoutBase {
  prev: FrameLayout | null;
  event: number;
}

/** deadlines.ts: the engine's next timer, the next inactivity check (Infinity: none), the heap position (-1: not in it). */
export interface DeadlineEntry {
  timerAt: number;
  inactivityAt: number;
  heapIndex: number;
}

/** snapshots.ts: the last snapshot's stateVersion (-1: none yet) and last input; restored for a crash's replay, the last batch mark its snapshot holds (replayed batches up to it are skipped, apply.ts liveSlot), -1 otherwise. */
export interface SnapshotMarks {
  event: number;
  inputs: number;
  replayMark: number;
}

export interface Slot {
  readonly groupCode: string;
  readonly match: Match;
  /** The replay file (RECORD_REPLAYS) and its start time. */
  readonly recorder: ReplayRecorder | undefined;
  readonly recordStart: number;
  readonly sent: SentFrames;
  /** Wall-clock time of the last applied message (apply.ts). */
  readonly received: { at: number };
  /**
   * The number of the last observer or auxiliary payload given to the match (apply.ts; the input
   * log's, main/matches/input-log.ts), and per node that forwarded payloads to it, the send number of
   * the last one (main/matches/owner-delivery.ts).
   */
  readonly inputs: { n: number; forwarded: Record<string, number> };
  /** The match id the main thread was last told (`match_id` event; '' before match_start), and the roster size (changes.ts). */
  readonly reported: { matchId: string; rosterSize: number };
  readonly layout: LayoutBase;
  readonly deadline: DeadlineEntry;
  /** The stateVersion of the last dashboard summary (summaries.ts) and of the last snapshot (-1: none yet; snapshots.ts). */
  readonly summary: { event: number };
  readonly snapshot: SnapshotMarks;
  /** Drop log keys already logged for this match (drops.ts). */
  readonly drops: Set<string>;
  /** Derives the match's events (EVENTS_ENABLED; match-events.ts), else null. */
  readonly events: { deriver: MatchEventDeriver | null };
}

/** What a new slot takes from its origin (a logon or a snapshot); the rest starts empty. */
export interface SlotOrigin {
  matchId: string;
  lastActivityAt: number;
  lastEventAt: number;
  frameNo: number;
  snapshot: SnapshotMarks;
  /** The last input the origin holds (a snapshot's; 0 for a logon), and the last forwarded one per node. */
  inputs: number;
  forwarded?: Record<string, number>;
  recordStart: number;
  recorder: ReplayRecorder | undefined;
}

export function newSlot(groupCode: string, match: Match, origin: SlotOrigin): Slot {
  return {
    groupCode, match, recorder: origin.recorder, recordStart: origin.recordStart,
    sent: { event: match.stateVersion - 1, at: 0, activityAt: origin.lastActivityAt, frameNo: origin.frameNo, frameTextsUntil: 0, frameTextSent: false, feedTablesWanted: false },
    received: { at: origin.lastEventAt },
    inputs: { n: origin.inputs, forwarded: Object.assign(Object.create(null) as Record<string, number>, origin.forwarded) },
    reported: { matchId: origin.matchId, rosterSize: 0 },
    layout: { prev: null, event: -1 },
    deadline: { timerAt: Infinity, inactivityAt: Infinity, heapIndex: -1 },
    summary: { event: -1 },
    snapshot: origin.snapshot,
    drops: new Set(),
    events: { deriver: null },
  };
}
