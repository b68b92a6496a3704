// A shard: owns the matches whose group codes hash to it. All mutation, timers, filtering and
// serialization of a match happen here; the main thread only routes raw payloads in and publishes
// the frames that come out. This class holds the matches and their lifetime (create, restore,
// frames, end, removal); the other jobs have a file each in this folder:
//   thread.ts     the worker entry: the batch loop and the periodic tick, wiring a Shard to the rules
//   context.ts    what each rule works on (a narrow context each, implemented here): the rules never import this class
//   changes.ts    what follows a change to a match (events to the main thread, frame due, timer moved)
//   commands.ts   batch unpacking and routing of the main thread's commands
//   apply.ts      messages into the engine (parse, routing checks, aux trust, recording)
//   effects.ts    engine effects → backend calls and events
//   frame-pacer.ts  when frames go out (leading edge, due timer: it returns the due matches); frames.ts: how (serializer, delta)
//   cycle.ts      the periodic tick (due deadlines, snapshots, stats, summaries); deadlines.ts: the timer heap
//   snapshots.ts, stats.ts, summaries.ts, drops.ts, output-buffer.ts (what goes to the main thread), slot.ts
// (a match's bookkeeping: each mutable part has one owner; this file owns `sent`)
import { feedTablesOf } from '../../protocol/feed-tables.js';
import { FRAME_TEXT_HOLD_FRAMES } from '../../protocol/limits.js';
import type { CreateMatchCmd, RestoreMatchCmd, ShardOut } from '../../protocol/shard-messages.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';
import { createClock, type MatchClock } from '../clock.js';
import { Match } from '../match/match.js';
import type { SnapshotState } from '../match/snapshot.js';
import { ReplayRecorder, replayHeader } from '../replay-recorder.js';
import { MatchChanges } from './changes.js';
import type { BatchContext, CycleContext, RemovalReason } from './context.js';
import { Deadlines } from './deadlines.js';
import { DropLog } from './drops.js';
import { FrameEncoder, type MadeFrame } from './frames.js';
import { nextDeadline, removedEvents, startEvents } from './match-events.js';
import { OutputBuffer } from './output-buffer.js';
import { FramePacer } from './frame-pacer.js';
import { newSlot, type Slot } from './slot.js';
import { parseSnapshot, restoredMarks, SnapshotRounds } from './snapshots.js';
import { StatsCounter } from './stats.js';
import { Summaries } from './summaries.js';

export class Shard implements BatchContext, CycleContext {
  readonly slots = new Map<string, Slot>();
  readonly clock: MatchClock;
  readonly out: OutputBuffer;
  readonly drops: DropLog;
  readonly stats: StatsCounter;
  readonly pacer: FramePacer;
  readonly snapshots: SnapshotRounds;
  readonly summaries = new Summaries();
  readonly deadlines: Deadlines;
  readonly changes: MatchChanges;
  /** The `exit` command was run: the thread closes its port. */
  exited = false;
  /** The mark of the batch being run (Infinity: a batch without one), set by the batch loop (thread.ts runBatch). */
  batchMark = Infinity;
  private readonly encoder: FrameEncoder;
  /** A snapshot's state, from the match's frame (frames.ts): no JSON.stringify of the state per round. */
  private readonly snapshotState = (slot: Slot): SnapshotState | undefined => this.encoder.snapshotState(slot);

  /**
   * `guarded` runs the shard's own timer callbacks: on a thread, directly (an exception ends the
   * thread, and the pool restarts it); on the main thread (SHARD_WORKERS=0), inside the inline
   * shard's guard, which turns an exception into the same restart (thread.ts startInlineShard).
   */
  constructor(readonly settings: ShardSettings, post: (out: ShardOut) => void, guarded: (work: () => void) => void = (work) => work()) {
    this.clock = createClock(settings.trustReplayTimestamps);
    this.out = new OutputBuffer(post);
    this.drops = new DropLog(this.out);
    this.encoder = new FrameEncoder(settings);
    this.stats = new StatsCounter(settings.intervalMs);
    this.pacer = new FramePacer(settings.intervalMs, () => guarded(() => {
      this.sendDueFrames(Date.now());
      this.out.flush();
    }));
    // A round spread over the cycles of its interval (snapshots.ts).
    this.snapshots = new SnapshotRounds(settings.snapshotIntervalMs, Math.max(1, Math.floor(settings.snapshotIntervalMs / settings.intervalMs)));
    this.deadlines = new Deadlines(this.clock.ticks, settings.inactivityMs);
    this.changes = new MatchChanges(this.out, this.pacer, this.deadlines);
  }

  /** `again`: the match is created again after a restart (STATE_DIR's creation file): its replay file goes on. */
  create(groupCode: string, logon: CreateMatchCmd['logon'], now: number, again = false, frameNoBase = 0): void {
    const existing = this.slots.get(groupCode);
    if (existing) this.remove(existing, 'admin');
    const match = Match.create(logon, now, { sponsorLogoUrl: this.settings.sponsorLogoUrl });
    const wallNow = Date.now();
    const recorder = this.settings.recordReplays
      ? (again ? ReplayRecorder.reopen(this.settings.replayDir, groupCode, now) : undefined)
        ?? new ReplayRecorder(this.settings.replayDir, groupCode, now, replayHeader(logon, this.settings.serviceVersion, now))
      : undefined;
    const slot = newSlot(groupCode, match, {
      matchId: match.matchId, lastActivityAt: wallNow, lastEventAt: wallNow, frameNo: frameNoBase, snapshot: { event: -1, inputs: -1, replayMark: -1 }, inputs: 0, recordStart: now, recorder,
    });
    this.slots.set(groupCode, slot);
    if (this.settings.matchEvents) startEvents(slot, now, false);
    this.deadlines.add(slot, nextDeadline(slot));
    this.changes.forwardEffects(slot);
    this.changes.touched(slot);
  }

  /** A match rebuilt from its snapshot: the next frame is a keyframe with its full state. */
  restore(cmd: RestoreMatchCmd): void {
    const { meta, match } = parseSnapshot(cmd.snapshot, cmd.playercamSecret);
    const existing = this.slots.get(cmd.groupCode);
    if (existing) this.remove(existing, 'admin');
    const slot = newSlot(cmd.groupCode, match, {
      matchId: '', lastActivityAt: meta.lastActivityAt, lastEventAt: meta.lastEventAt, frameNo: cmd.frameNoBase,
      // A crash's replay skips the batches the snapshot holds; other restores are snapshotted anew (snapshots.ts).
      snapshot: restoredMarks(meta, cmd.replay === true, match.stateVersion), inputs: meta.inputs ?? 0, forwarded: meta.forwarded, recordStart: meta.recordStart,
      recorder: this.settings.recordReplays ? ReplayRecorder.reopen(this.settings.replayDir, cmd.groupCode, meta.recordStart) : undefined,
    });
    this.slots.set(cmd.groupCode, slot);
    if (this.settings.matchEvents) startEvents(slot, meta.lastEventAt, true, meta.events);
    this.deadlines.add(slot, nextDeadline(slot));
    if (match.matchId) this.changes.matchIdChanged(slot);
    this.changes.rosterChanged(slot);
    this.changes.touched(slot);
  }

  /** The frames that are due (none while muted: the lost thread sent them). */
  sendDueFrames(now: number): void {
    if (this.out.muted) return;
    // FRAME_EDGE=cycle: every pending match at the cycle (the batches send none, thread.ts runBatch).
    const slots = this.settings.frameEdge === 'cycle' ? this.pacer.allPending() : this.pacer.due(now);
    for (const slot of slots) this.sendFrame(slot, now);
  }

  /** The match's frame, when it changed since its last one (`force`: anyway); a match that ended is then removed. */
  sendFrame(slot: Slot, now: number, force = false): void {
    this.pacer.forget(slot);
    const sent = slot.sent;
    if (!force && slot.match.stateVersion <= sent.event) return;
    let frame: MadeFrame;
    try {
      frame = this.encoder.make(slot, now);
    } catch (err) {
      this.out.log('error', 'serialization failed', { groupCode: slot.groupCode, error: (err as Error).message });
      sent.event = slot.match.stateVersion;
      return;
    }
    this.stats.framesSerialized++;
    const delta = this.encoder.delta(slot, frame);
    sent.frameNo++;
    // The frame text goes along only when the main thread cannot do without it: no delta (a first
    // frame, no COMPRESSION: nothing kept here either), or it asked for frame texts (`frame_texts`).
    sent.frameTextSent = delta === null || sent.frameNo <= sent.frameTextsUntil;
    this.out.frame(slot.groupCode, sent.frameNo, sent.frameTextSent ? this.encoder.frameText(frame) : null, frame.length, delta);
    sent.event = slot.match.stateVersion;
    sent.at = now;
    sent.activityAt = now;
    if (sent.feedTablesWanted) this.sendFeedTablesNow(slot);
    if (slot.match.ended) this.remove(slot, 'ended');
  }

  /**
   * A match that ends without game_end (operator force-end, inactivity, shutdown without
   * STATE_DIR): a last frame even when nothing changed, with isRunning false (Match.stopRunning)
   * so that overlays and tools can tell it is over, then the removal path (backend completion when
   * registered). docs/match-rules.md 14.1 removes an inactive match without a frame; this one is added.
   */
  endMatch(slot: Slot, now: number, reason: 'inactive' | 'admin' | 'shutdown'): void {
    slot.match.stopRunning(this.clock.tickTime(now) ?? slot.match.lastChangeAt);
    this.sendFrame(slot, now, true);
    if (this.slots.get(slot.groupCode) === slot) this.remove(slot, reason); // sendFrame removed it if game_end was applied
  }

  /** The main thread needs the match's frame texts (`frame_texts` command): the last frame's now (`answer`), and those of the next frames. */
  sendFrameTexts(slot: Slot, answer: boolean): void {
    slot.sent.frameTextsUntil = slot.sent.frameNo + FRAME_TEXT_HOLD_FRAMES;
    if (answer) this.sendLastFrameText(slot);
  }

  /** The feeds' tables of the state the last frame shows: now, or after the next frame when a change is not framed yet. */
  sendFeedTables(slot: Slot): void {
    if (slot.sent.frameNo > 0 && slot.sent.event === slot.match.stateVersion) this.sendFeedTablesNow(slot);
    else slot.sent.feedTablesWanted = true;
  }

  /** From the state itself (what the frame was serialized from, with the frame's serverTime): no frame text, no parse. */
  private sendFeedTablesNow(slot: Slot): void {
    slot.sent.feedTablesWanted = false;
    const serverTime = this.settings.trustReplayTimestamps ? slot.match.lastChangeAt : slot.sent.at;
    const tables = feedTablesOf(slot.match.liveState(), serverTime);
    this.out.feedTables(slot.groupCode, slot.sent.frameNo, JSON.stringify({ scoreboard: tables.scoreboard, serverTime }), JSON.stringify(tables.players));
  }

  private sendLastFrameText(slot: Slot): void {
    const frameText = this.encoder.lastFrameText(slot);
    if (frameText !== null) this.out.lateFrameText(slot.groupCode, slot.sent.frameNo, frameText);
  }

  remove(slot: Slot, reason: RemovalReason): void {
    // The final frame stays on the main thread after the match is gone here (overlays that skipped it).
    if (!slot.sent.frameTextSent) this.sendLastFrameText(slot);
    this.slots.delete(slot.groupCode);
    this.pacer.forget(slot);
    this.deadlines.remove(slot);
    if (slot.match.isRegistered) {
      this.out.event({ t: 'effect', effect: { kind: 'complete', groupCode: slot.groupCode, matchId: slot.reported.matchId, body: slot.match.registerBody() } });
    } else if (slot.reported.matchId) {
      // Ended before the registration answer came back: the main thread completes it once that answer comes.
      this.out.event({ t: 'effect', effect: { kind: 'complete', groupCode: slot.groupCode, matchId: slot.reported.matchId, body: slot.match.registerBody(), ifRegistering: true } });
    }
    slot.recorder?.close();
    removedEvents(slot, this.out, reason === 'ended' ? 'completed' : reason);
    this.out.event({ t: 'removed', groupCode: slot.groupCode, reason });
  }

  /** The match's new owner is another node: forgotten here, with nothing sent (docs/architecture.md, "Scale-out on Redis"). */
  evict(slot: Slot): void {
    this.slots.delete(slot.groupCode);
    this.pacer.forget(slot);
    this.deadlines.remove(slot);
    slot.recorder?.close();
  }

  /** A snapshot round now (`force`: every match, changed or not). */
  takeSnapshots(force: boolean): void {
    const snapshots = this.snapshots.take(this.slots, this.out.mark, force, (slot, err) => {
      this.out.log('error', 'snapshot failed', { groupCode: slot.groupCode, error: err.message });
    }, this.snapshotState);
    if (snapshots) this.out.snapshots(snapshots);
  }

  /**
   * The shutdown drain: every pending frame now and a snapshot of every match (STATE_DIR: they are
   * resumed after the restart, so they go on). With `endMatches` (no STATE_DIR) the matches end
   * here, completed with the backend: each one's last frame, its pending changes included, says it ended.
   */
  drain(endMatches: boolean, now: number): void {
    this.out.muted = false;
    if (endMatches) for (const slot of [...this.slots.values()]) this.endMatch(slot, now, 'shutdown');
    else for (const slot of this.pacer.allPending()) this.sendFrame(slot, now);
    this.takeSnapshots(true);
    this.out.event({ t: 'drained' });
  }

  /** Someone watches the dashboard rows or no longer does; when watched, the summaries of every changed match now. */
  watchSummaries(on: boolean, now: number): void {
    this.summaries.watched = on;
    if (!on) return;
    const summaries = this.summaries.take(this.slots.values(), now, true);
    if (summaries) this.out.summaries(summaries);
    this.out.event({ t: 'summarized' });
  }

  /** Re-application of acknowledged batches starts or ends; at its end every match is looked at again. */
  setMuted(on: boolean): void {
    this.out.muted = on;
    if (!on) for (const slot of this.slots.values()) this.changes.touched(slot);
  }

  /** The thread's end: no more timers (the periodic tick is the thread's: it stops it on `exited`), replay files closed. */
  exit(): void {
    this.exited = true;
    this.stats.stop();
    this.pacer.stop();
    for (const slot of this.slots.values()) slot.recorder?.close();
  }
}
