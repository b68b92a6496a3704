// One live match in a shard: the engine's Match and the shard's bookkeeping around it.
import type { Match } from '../match/match.js';
import type { ReplayRecorder } from '../replay-recorder.js';
import type { FrameLayout } from '../wire-serializer.js';

export interface Slot {
  readonly groupCode: string;
  readonly match: Match;
  /** The eventNumber and wall-clock time of the last frame (leading edge, scheduler.ts). */
  lastSentEvent: number;
  lastSentAt: number;
  /** Wall-clock time of the last frame or creation (inactivity, docs/match-rules.md 14.1). */
  lastActivityAt: number;
  /** The match id the main thread was last told (`match_id` event); '' before match_start. */
  matchId: string;
  recorder: ReplayRecorder | undefined;
  /** The last frame's number, and its layout (the base of the next delta, frames.ts). */
  frameNo: number;
  prevLayout: FrameLayout | null;
  /** The eventNumber of the state prevLayout's frame shows (snapshots take the state's text from it while it is current). */
  layoutEvent: number;
  /** Frames up to this number carry their text to the main thread (`wire` command); whether the last one did. */
  textsUntil: number;
  textSent: boolean;
  /** Drop log keys already logged for this match (drops.ts). */
  loggedDrops: Set<string>;
  /** Wall-clock time of the last applied message, and the eventNumber of the last dashboard summary. */
  lastEventAt: number;
  summarizedEvent: number;
  /** Players on the roster when the main thread was last told (auxiliary logons must name one). */
  rosterSize: number;
  /** The eventNumber of the last snapshot (-1: none yet), and the replay file's start time. */
  snapshotEvent: number;
  /** Restored for a crash's replay: the last batch mark its snapshot holds (replayed batches up to it are skipped); -1 otherwise. */
  replayMark: number;
  recordStart: number;
  /** deadlines.ts: the engine's next timer, the next inactivity check (Infinity: none), the heap position (-1: not in it). */
  timerAt: number;
  inactivityAt: number;
  heapIndex: number;
}

/** The fields a new slot takes from its origin (a logon or a snapshot); the rest start empty. */
export type SlotOrigin = Pick<Slot, 'matchId' | 'lastActivityAt' | 'lastEventAt' | 'frameNo' | 'snapshotEvent' | 'recordStart'>;

export function newSlot(groupCode: string, match: Match, origin: SlotOrigin): Slot {
  return {
    groupCode, match, lastSentEvent: match.eventNumber - 1, lastSentAt: 0, lastActivityAt: origin.lastActivityAt,
    matchId: origin.matchId, recorder: undefined, frameNo: origin.frameNo, prevLayout: null, layoutEvent: -1, textsUntil: 0, textSent: false, loggedDrops: new Set(),
    lastEventAt: origin.lastEventAt, summarizedEvent: -1, rosterSize: 0, snapshotEvent: origin.snapshotEvent, replayMark: -1,
    recordStart: origin.recordStart, timerAt: Infinity, inactivityAt: Infinity, heapIndex: -1,
  };
}
