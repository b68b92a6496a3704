// A shard: owns the matches whose group codes hash to it. All mutation, timers, filtering and
// serialization of a match happen here; the main thread only routes raw payloads in and publishes
// the frames that come out. This class holds the matches and their lifetime (create, restore,
// frames, end, removal); the other jobs have a file each in this folder:
//   thread.ts     the worker entry: the batch loop and the periodic tick, wiring a Shard to the rules
//   context.ts    what the rules work on (ShardContext, implemented here): the rules never import this class
//   commands.ts   batch unpacking and routing of the main thread's commands
//   apply.ts      messages into the engine (parse, routing checks, aux trust, recording)
//   effects.ts    engine effects → backend calls and events
//   scheduler.ts  when frames go out (leading edge, due timer); frames.ts: how (serializer, delta)
//   cycle.ts      the periodic tick (due deadlines, snapshots, stats, summaries); deadlines.ts: the timer heap
//   snapshots.ts, stats.ts, summaries.ts, drops.ts, outbox.ts (what goes to the main thread), slot.ts
import { WIRE_HOLD_FRAMES } from '../../protocol/limits.js';
import type { CreateMatchCmd, RestoreMatchCmd, ShardOut } from '../../protocol/shard-messages.js';
import type { ShardSettings } from '../../protocol/shard-settings.js';
import { createClock, type MatchClock } from '../clock.js';
import { Match } from '../match/match.js';
import type { SnapshotState } from '../match/snapshot.js';
import { ReplayRecorder, replayHeader } from '../replay-recorder.js';
import type { RemovalReason, ShardContext } from './context.js';
import { Deadlines } from './deadlines.js';
import { DropLog } from './drops.js';
import { forwardEffects } from './effects.js';
import { FrameEncoder, type MadeFrame } from './frames.js';
import { Outbox } from './outbox.js';
import { FrameScheduler } from './scheduler.js';
import { newSlot, type Slot } from './slot.js';
import { parseSnapshot, SnapshotRounds } from './snapshots.js';
import { StatsCounter } from './stats.js';
import { Summaries } from './summaries.js';

export class Shard implements ShardContext {
  readonly slots = new Map<string, Slot>();
  readonly clock: MatchClock;
  readonly out: Outbox;
  readonly drops: DropLog;
  readonly stats = new StatsCounter();
  readonly frames: FrameScheduler;
  readonly snapshots: SnapshotRounds;
  readonly summaries = new Summaries();
  readonly deadlines: Deadlines;
  /** The `exit` command was run: the thread closes its port. */
  exited = false;
  /** The mark of the batch being run (Infinity: a batch without one), set by the batch loop (thread.ts runBatch). */
  batchMark = Infinity;
  private readonly encoder: FrameEncoder;
  private readonly sendFrameNow = (slot: Slot, now: number): void => this.sendFrame(slot, now);
  /** A snapshot's state, from the match's frame (frames.ts): no JSON.stringify of the state per round. */
  private readonly snapshotState = (slot: Slot): SnapshotState | undefined => this.encoder.snapshotState(slot);

  /**
   * `guarded` runs the shard's own timer callbacks: on a thread, directly (an exception ends the
   * thread, and the pool restarts it); on the main thread (SHARD_WORKERS=0), inside the inline
   * shard's guard, which turns an exception into the same restart (thread.ts startInlineShard).
   */
  constructor(readonly settings: ShardSettings, post: (out: ShardOut) => void, guarded: (work: () => void) => void = (work) => work()) {
    this.clock = createClock(settings.trustReplayTimestamps);
    this.out = new Outbox(post);
    this.drops = new DropLog(this.out);
    this.encoder = new FrameEncoder(settings);
    this.frames = new FrameScheduler(settings.intervalMs, () => guarded(() => {
      this.sendDueFrames(Date.now());
      this.out.flush();
    }));
    // A round spread over the cycles of its interval (snapshots.ts).
    this.snapshots = new SnapshotRounds(settings.snapshotIntervalMs, Math.max(1, Math.floor(settings.snapshotIntervalMs / settings.intervalMs)));
    this.deadlines = new Deadlines(this.clock.ticks, settings.inactivityMs);
  }

  create(groupCode: string, logon: CreateMatchCmd['logon'], now: number): void {
    const existing = this.slots.get(groupCode);
    if (existing) this.remove(existing, 'admin');
    const match = Match.create(logon, now, { sponsorLogoUrl: this.settings.sponsorLogoUrl });
    const wallNow = Date.now();
    const slot = newSlot(groupCode, match, {
      matchId: match.matchId, lastActivityAt: wallNow, lastEventAt: wallNow, frameNo: 0, snapshotEvent: -1, recordStart: now,
    });
    if (this.settings.recordReplays) {
      slot.recorder = new ReplayRecorder(this.settings.replayDir, groupCode, now, replayHeader(logon, this.settings.serviceVersion, now));
    }
    this.slots.set(groupCode, slot);
    this.deadlines.add(slot, slot.match.nextTimerAt);
    this.forwardEffects(slot);
    this.touched(slot);
  }

  /** A match rebuilt from its snapshot: the next frame is a keyframe with its full state. */
  restore(cmd: RestoreMatchCmd): void {
    const { meta, match } = parseSnapshot(cmd.snapshot, cmd.playercamSecret);
    const existing = this.slots.get(cmd.groupCode);
    if (existing) this.remove(existing, 'admin');
    // A crash's replay (cmd.replay): the batches up to the snapshot's mark are in it (snapshots.ts).
    // Any other restore (a restart from STATE_DIR, a takeover) holds marks of another process: none
    // skipped, and the match is snapshotted again in the next round, at a mark of this one.
    const replay = cmd.replay === true && typeof meta.mark === 'number';
    const slot = newSlot(cmd.groupCode, match, {
      matchId: '', lastActivityAt: meta.lastActivityAt, lastEventAt: meta.lastEventAt, frameNo: cmd.frameNoBase,
      snapshotEvent: replay ? match.eventNumber : -1, recordStart: meta.recordStart,
    });
    if (replay) slot.replayMark = meta.mark!;
    if (this.settings.recordReplays) slot.recorder = ReplayRecorder.reopen(this.settings.replayDir, cmd.groupCode, meta.recordStart);
    this.slots.set(cmd.groupCode, slot);
    this.deadlines.add(slot, slot.match.nextTimerAt);
    if (match.matchId) this.matchIdChanged(slot);
    this.rosterChanged(slot);
    this.touched(slot);
  }

  /** The main thread routes auxiliary data by match id: it learns each match's as it changes. */
  matchIdChanged(slot: Slot): void {
    slot.matchId = slot.match.matchId;
    this.out.event({ t: 'match_id', groupCode: slot.groupCode, matchId: slot.matchId });
  }

  /** The main thread learns the roster's player ids as they grow (players are only ever added): auxiliary logons must name one. */
  rosterChanged(slot: Slot): void {
    const teams = slot.match.snapshot().teams;
    if (teams[0].players.length + teams[1].players.length === slot.rosterSize) return;
    const playerIds = [...teams[0].players, ...teams[1].players].map((p) => p.riotId);
    slot.rosterSize = playerIds.length;
    this.out.event({ t: 'roster', groupCode: slot.groupCode, playerIds });
  }

  forwardEffects(slot: Slot): void {
    forwardEffects(slot, this.out);
  }

  /** The match may have changed: it gets a frame when one is due (scheduler.ts), its engine timer may have moved (deadlines.ts). */
  touched(slot: Slot): void {
    this.frames.touched(slot);
    this.deadlines.timerMoved(slot, slot.match.nextTimerAt);
  }

  /** The frames that are due (none while muted: the lost thread sent them). */
  sendDueFrames(now: number): void {
    if (this.out.muted) return;
    if (this.settings.frameEdge === 'cycle') this.frames.sendAll(now, this.sendFrameNow);
    else this.frames.sendDue(now, this.sendFrameNow);
  }

  /** The match's frame, when it changed since its last one (`force`: anyway); a match that ended is then removed. */
  sendFrame(slot: Slot, now: number, force = false): void {
    this.frames.forget(slot);
    if (!force && slot.match.eventNumber <= slot.lastSentEvent) return;
    let frame: MadeFrame;
    try {
      frame = this.encoder.make(slot, now);
    } catch (err) {
      this.out.log('error', 'serialization failed', { groupCode: slot.groupCode, error: (err as Error).message });
      slot.lastSentEvent = slot.match.eventNumber;
      return;
    }
    this.stats.framesSerialized++;
    const delta = this.encoder.delta(slot, frame);
    slot.frameNo++;
    // The text goes along only when the main thread cannot do without it: no delta (a first frame,
    // no COMPRESSION: nothing kept here either), or it asked for texts (`wire`).
    slot.textSent = delta === null || slot.frameNo <= slot.textsUntil;
    this.out.frame(slot.groupCode, slot.frameNo, slot.textSent ? this.encoder.text(frame) : null, frame.length, delta);
    slot.lastSentEvent = slot.match.eventNumber;
    slot.lastSentAt = now;
    slot.lastActivityAt = now;
    if (slot.match.ended) this.remove(slot, 'ended');
  }

  /**
   * A match that ends without game_end (operator force-end, inactivity, shutdown without
   * STATE_DIR): a last frame even when nothing changed, with isRunning false (Match.stopRunning)
   * so that frontends and tools can tell it is over, then the removal path (backend completion when
   * registered). docs/match-rules.md 14.1 removes an inactive match without a frame; this one is added.
   */
  endMatch(slot: Slot, now: number, reason: 'inactive' | 'admin' | 'shutdown'): void {
    slot.match.stopRunning(this.clock.tickTime(now) ?? slot.match.lastChangeAt);
    this.sendFrame(slot, now, true);
    if (this.slots.get(slot.groupCode) === slot) this.remove(slot, reason); // sendFrame removed it if game_end was applied
  }

  /** The main thread needs the match's frame texts (`wire` command): the last frame's now (`answer`), and those of the next frames. */
  sendTexts(slot: Slot, answer: boolean): void {
    slot.textsUntil = slot.frameNo + WIRE_HOLD_FRAMES;
    if (answer) this.sendLastText(slot);
  }

  private sendLastText(slot: Slot): void {
    const text = this.encoder.lastWire(slot);
    if (text !== null) this.out.text(slot.groupCode, slot.frameNo, text);
  }

  remove(slot: Slot, reason: RemovalReason): void {
    // The final frame stays on the main thread after the match is gone here (frontends that skipped it).
    if (!slot.textSent) this.sendLastText(slot);
    this.slots.delete(slot.groupCode);
    this.frames.forget(slot);
    this.deadlines.remove(slot);
    if (slot.match.isRegistered) {
      this.out.event({ t: 'effect', effect: { kind: 'complete', groupCode: slot.groupCode, matchId: slot.matchId, body: slot.match.registerBody() } });
    } else if (slot.matchId) {
      // Ended before the registration answer came back: the main thread completes it once that answer comes.
      this.out.event({ t: 'effect', effect: { kind: 'complete', groupCode: slot.groupCode, matchId: slot.matchId, body: slot.match.registerBody(), ifRegistering: true } });
    }
    slot.recorder?.close();
    this.out.event({ t: 'removed', groupCode: slot.groupCode, reason });
  }

  /** The match's new owner is another node: forgotten here, with nothing sent (docs/architecture.md, "Scale-out on Redis"). */
  evict(slot: Slot): void {
    this.slots.delete(slot.groupCode);
    this.frames.forget(slot);
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
    else for (const slot of this.frames.allPending()) this.sendFrame(slot, now);
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
    if (!on) for (const slot of this.slots.values()) this.touched(slot);
  }

  /** The thread's end: no more timers (the periodic tick is the thread's: it stops it on `exited`), replay files closed. */
  exit(): void {
    this.exited = true;
    this.stats.stop();
    this.frames.stop();
    for (const slot of this.slots.values()) slot.recorder?.close();
  }
}
