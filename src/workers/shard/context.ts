// What the shard's rules (commands.ts, apply.ts, cycle.ts) work on: the shard's parts and the
// operations on a match's lifetime, declared here, below both the rules and the Shard that
// implements them (shard.ts). The rules are free functions handed this context (as Fastify's hooks
// get a request and a reply and never import the server): they never import the Shard, and the
// Shard never imports them; the thread's entry (thread.ts) wires the two. So this folder has no
// import circle (scripts/check-imports.mjs).
import type { CreateMatchCmd, RestoreMatchCmd } from '../../protocol/shard-messages.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';
import type { MatchClock } from '../clock.js';
import type { Deadlines } from './deadlines.js';
import type { DropLog } from './drops.js';
import type { Outbox } from './outbox.js';
import type { FrameScheduler } from './scheduler.js';
import type { Slot } from './slot.js';
import type { SnapshotRounds } from './snapshots.js';
import type { StatsCounter } from './stats.js';
import type { Summaries } from './summaries.js';

export type RemovalReason = 'ended' | 'inactive' | 'admin' | 'shutdown';

export interface ShardContext {
  readonly settings: ShardSettings;
  /** The live matches by group code. */
  readonly slots: ReadonlyMap<string, Slot>;
  readonly clock: MatchClock;
  /** What goes to the main thread (outbox.ts), the drop log (drops.ts), the stats (stats.ts). */
  readonly out: Outbox;
  readonly drops: DropLog;
  readonly stats: StatsCounter;
  /** When frames go out (scheduler.ts), the deadline heap (deadlines.ts), snapshot rounds, dashboard summaries. */
  readonly frames: FrameScheduler;
  readonly deadlines: Deadlines;
  readonly snapshots: SnapshotRounds;
  readonly summaries: Summaries;
  /** The mark of the batch being run (Infinity: none), for the replay after a crash (apply.ts liveSlot). */
  batchMark: number;

  // A match's lifetime.
  create(groupCode: string, logon: CreateMatchCmd['logon'], now: number): void;
  /** A match rebuilt from its snapshot. */
  restore(cmd: RestoreMatchCmd): void;
  /** A match that ends without game_end: a last frame saying so, then the removal path. */
  endMatch(slot: Slot, now: number, reason: 'inactive' | 'admin' | 'shutdown'): void;
  /** The match's new owner is another node: forgotten here, with nothing sent. */
  evict(slot: Slot): void;

  // A match may have changed.
  /** It gets a frame when one is due, its engine timer may have moved. */
  touched(slot: Slot): void;
  /** The effects its engine requested, on to the main thread. */
  forwardEffects(slot: Slot): void;
  /** The main thread learns its roster's player ids, its match id. */
  rosterChanged(slot: Slot): void;
  matchIdChanged(slot: Slot): void;

  // Outputs.
  /** The frames that are due (none while muted). */
  sendDueFrames(now: number): void;
  /** The main thread needs the match's frame texts (`wire`): the last one's now when `answer`. */
  sendTexts(slot: Slot, answer: boolean): void;
  /** A snapshot round now (`force`: every match). */
  takeSnapshots(force: boolean): void;

  // The shard as a whole.
  /** The shutdown drain (with `endMatches`, every match ends). */
  drain(endMatches: boolean, now: number): void;
  watchSummaries(on: boolean, now: number): void;
  setMuted(on: boolean): void;
  /** The thread's end: no more timers, replay files closed. */
  exit(): void;
}
