// What each of the shard's rules works on: a narrow context per rule, holding the parts that rule
// uses and nothing else (as Fastify's hooks get a request and a reply and never the server). The
// Shard (shard.ts) implements them all; the rules never import it, and it never imports them: the
// thread's entry (thread.ts) hands the one to the others. So this folder has no import circle
// (scripts/check-imports.mjs). A change to a match is reported to MatchChanges (changes.ts), never
// back to the Shard.
import type { CreateMatchCmd, RestoreMatchCmd } from '../../protocol/shard-messages.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';
import type { MatchClock } from '../clock.js';
import type { MatchChanges } from './changes.js';
import type { Deadlines } from './deadlines.js';
import type { DropLog } from './drops.js';
import type { OutputBuffer } from './output-buffer.js';
import type { FramePacer } from './frame-pacer.js';
import type { Slot } from './slot.js';
import type { SnapshotRounds } from './snapshots.js';
import type { StatsCounter } from './stats.js';
import type { Summaries } from './summaries.js';

export type RemovalReason = 'ended' | 'inactive' | 'admin' | 'shutdown';

/** apply.ts: a message into its match's engine. */
export interface ApplyContext {
  /** The live matches by group code. */
  readonly slots: ReadonlyMap<string, Slot>;
  readonly clock: MatchClock;
  readonly drops: Pick<DropLog, 'drop'>;
  readonly stats: Pick<StatsCounter, 'accepted'>;
  /** `muted`: acknowledged batches re-applied (nothing is recorded again). */
  readonly out: Pick<OutputBuffer, 'muted'>;
  readonly changes: MatchChanges;
  /** The mark of the batch being run (Infinity: none): a crash's replay skips what a restored snapshot holds (apply.ts liveSlot). */
  readonly batchMark: number;
}

/** commands.ts: the main thread's commands, routed to the match or the shard they concern. */
export interface CommandContext extends ApplyContext {
  readonly settings: Pick<ShardSettings, 'faultInjection'>;
  /** `mark`: the last batch mark processed; `muted`. */
  readonly out: Pick<OutputBuffer, 'muted' | 'mark'>;
  /** A match's lifetime. */
  create(groupCode: string, logon: CreateMatchCmd['logon'], now: number, again?: boolean, frameNoBase?: number): void;
  restore(cmd: RestoreMatchCmd): void;
  /** A match that ends without game_end: a last frame saying so, then the removal path. */
  endMatch(slot: Slot, now: number, reason: 'inactive' | 'admin' | 'shutdown'): void;
  /** The match's new owner is another node: forgotten here, with nothing sent. */
  evict(slot: Slot): void;
  /** The main thread needs the match's frame texts (`frame_texts`): the last one's now when `answer`. */
  sendFrameTexts(slot: Slot, answer: boolean): void;
  /** GET /feeds polls the match (`feed_tables`): the feeds' tables of its latest frame's state. */
  sendFeedTables(slot: Slot): void;
  /** The shard as a whole: the shutdown drain, dashboard summaries, muting, the thread's end. */
  drain(endMatches: boolean, now: number): void;
  watchSummaries(on: boolean, now: number): void;
  setMuted(on: boolean): void;
  exit(): void;
}

/** thread.ts runBatch: a batch's commands, then the frames due, in one output. */
export interface BatchContext extends CommandContext {
  readonly out: Pick<OutputBuffer, 'muted' | 'mark' | 'log' | 'flush'>;
  readonly settings: Pick<ShardSettings, 'faultInjection' | 'frameEdge'>;
  /** Set to the batch's mark (its last command) before its commands run. */
  batchMark: number;
  /** The frames that are due (none while muted). */
  sendDueFrames(now: number): void;
}

/** cycle.ts: the periodic tick. */
export interface CycleContext {
  readonly settings: Pick<ShardSettings, 'inactivityMs' | 'shard'>;
  readonly slots: ReadonlyMap<string, Slot>;
  readonly clock: MatchClock;
  readonly deadlines: Pick<Deadlines, 'due' | 'checkInactivityAt'>;
  readonly changes: MatchChanges;
  readonly pacer: Pick<FramePacer, 'isPending'>;
  readonly snapshots: Pick<SnapshotRounds, 'due'>;
  readonly stats: Pick<StatsCounter, 'cycleStarted' | 'cycleTook' | 'take'>;
  readonly drops: Pick<DropLog, 'counts'>;
  readonly summaries: Pick<Summaries, 'take'>;
  readonly out: Pick<OutputBuffer, 'stats' | 'summaries' | 'flush'>;
  endMatch(slot: Slot, now: number, reason: 'inactive'): void;
  sendDueFrames(now: number): void;
  /** A snapshot round now (`force`: every match). */
  takeSnapshots(force: boolean): void;
}
