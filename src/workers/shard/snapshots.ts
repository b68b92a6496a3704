// Snapshots for crash recovery and STATE_DIR (docs/architecture.md, "Crash recovery"): one match's
// text (the shard's bookkeeping and the engine's snapshot, without the player-camera secret, which
// travels beside it), the rounds that take those of the changed matches every SNAPSHOT_INTERVAL_MS
// with the batch mark they cover, and a match rebuilt from its text.
//
// A round is spread over the cycles of its interval (issue 28): each cycle snapshots a slice of the
// matches listed when the round began, so no cycle carries a thousand snapshots (their texts and the
// structured clone of ~17 kB each to the main thread) at once. The round reports the mark it began
// with once its last slice is taken: every match was snapshotted at that mark or later. A match
// snapshotted later than that mark would have the batches in between applied twice after a crash, so
// each snapshot carries its own mark, and a match restored for a crash's replay skips the replayed
// batches its snapshot already holds (apply.ts liveSlot).
import type { ShardSnapshots } from '../../protocol/shard-messages.js';
import type { DeriverJournal } from '../events/deriver.js';
import { Match } from '../match/match.js';
import type { SnapshotState } from '../match/snapshot.js';
import type { Slot, SnapshotMarks } from './slot.js';

/**
 * The shard's bookkeeping a restored match keeps; `mark`: the last batch the snapshot holds (absent
 * before issue 28); `events`: what its event deriver cannot read back from the state (absent
 * without EVENTS_ENABLED and before issue 35); `inputs`: the last input it holds (the input log's,
 * main/matches/input-log.ts; absent before it: 0).
 */
export interface SlotMeta {
  lastActivityAt: number;
  lastEventAt: number;
  recordStart: number;
  mark?: number;
  inputs?: number;
  /** Per node that forwarded payloads to the match, the send number of the last one (absent: none). */
  forwarded?: Record<string, number>;
  events?: DeriverJournal;
}

/** {"slot":<SlotMeta: no member named "match" at any depth>,"match":<the engine's snapshot>} */
export function snapshotText(slot: Slot, state?: SnapshotState, mark = -1): string {
  const meta: SlotMeta = { lastActivityAt: slot.sent.activityAt, lastEventAt: slot.received.at, recordStart: slot.recordStart, mark, inputs: slot.inputs.n };
  for (const _ in slot.inputs.forwarded) { meta.forwarded = slot.inputs.forwarded; break; }
  const deriver = slot.events.deriver;
  if (deriver) meta.events = deriver.journal();
  return '{"slot":' + JSON.stringify(meta) + ',"match":' + slot.match.toSnapshot(state) + '}';
}

/** A match and its bookkeeping from snapshotText()'s text. Throws on anything else. */
export function parseSnapshot(text: string, playercamSecret: string): { meta: SlotMeta; match: Match } {
  // The engine's part is handed on as text: Match.fromSnapshot parses it once.
  const cut = text.indexOf(',"match":');
  if (!text.startsWith('{"slot":') || cut < 0) throw new Error('not a shard snapshot');
  const meta = JSON.parse(text.slice(8, cut)) as SlotMeta;
  return { meta, match: Match.fromSnapshot(text.slice(cut + 9, -1), playercamSecret) };
}

/**
 * A restored match's snapshot part. A crash's replay (`replay`): the batches up to the snapshot's
 * mark are in it, and it counts as snapshotted. Any other restore (a restart from STATE_DIR, a
 * takeover) holds marks of another process: none skipped, and the match is snapshotted again in the
 * next round, at a mark of this one.
 */
export function restoredMarks(meta: SlotMeta, replay: boolean, stateVersion: number): SnapshotMarks {
  return replay && typeof meta.mark === 'number' ? { event: stateVersion, inputs: meta.inputs ?? 0, replayMark: meta.mark } : { event: -1, inputs: -1, replayMark: -1 };
}

export class SnapshotRounds {
  private lastRoundAt = Date.now();
  /** The last mark reported: the main thread forgets the batches up to it. */
  private lastMark = -1;
  /** The round in progress: the matches listed when it began, the next one's index, the mark it began with, its slice size. */
  private round: Slot[] = [];
  private next = 0;
  private roundMark = -1;
  private perSlice = 1;

  /** `slices`: how many cycles a round is spread over (SNAPSHOT_INTERVAL_MS / BROADCAST_INTERVAL_MS; 1: all at once). */
  constructor(private readonly intervalMs: number, private readonly slices = 1) {}

  /** Whether a slice is due: a round is in progress, or SNAPSHOT_INTERVAL_MS passed since the last one began (it begins now). */
  due(now: number): boolean {
    if (this.next < this.round.length) return true;
    if (now - this.lastRoundAt < this.intervalMs) return false;
    this.lastRoundAt = now;
    this.next = -1; // take() begins the round
    return true;
  }

  /**
   * Snapshots of the matches that changed since their last one, with the mark the main thread may
   * forget the batches up to; undefined when there is nothing to send. `force` (the shutdown drain):
   * every match now, at `mark`. Otherwise the next slice of the round (the first slice begins it).
   */
  take(slots: ReadonlyMap<string, Slot>, mark: number, force: boolean, onError: (slot: Slot, err: Error) => void, snapshotState?: (slot: Slot) => SnapshotState | undefined): ShardSnapshots | undefined {
    const out: ShardSnapshots = { mark, codes: [], texts: [], camSecrets: [], inputs: [] };
    if (force) {
      for (const slot of slots.values()) snapshotInto(out, slot, mark, true, onError, snapshotState);
      this.lastMark = Math.max(this.lastMark, mark);
      return out;
    }
    if (this.next < 0 || this.next >= this.round.length) {
      this.round = [...slots.values()];
      this.next = 0;
      this.roundMark = mark;
      this.perSlice = Math.max(1, Math.ceil(this.round.length / this.slices));
    }
    const end = Math.min(this.round.length, this.next + this.perSlice);
    for (; this.next < end; this.next++) {
      const slot = this.round[this.next];
      if (slots.get(slot.groupCode) === slot) snapshotInto(out, slot, mark, false, onError, snapshotState); // not removed since
    }
    let reported = this.lastMark;
    if (this.next >= this.round.length) {
      this.round = []; // the round is whole: every match listed was snapshotted at roundMark or later
      reported = Math.max(this.lastMark, this.roundMark);
    }
    if (out.codes.length === 0 && reported === this.lastMark) return undefined;
    this.lastMark = reported;
    out.mark = reported;
    return out;
  }
}

/** The slot's snapshot into `out` when it changed or was given inputs since its last one (any with `force`): a snapshot lets the input log go. */
function snapshotInto(out: ShardSnapshots, slot: Slot, mark: number, force: boolean, onError: (slot: Slot, err: Error) => void, snapshotState?: (slot: Slot) => SnapshotState | undefined): void {
  if (!force && slot.snapshot.event === slot.match.stateVersion && slot.snapshot.inputs === slot.inputs.n) return;
  try {
    out.texts.push(snapshotText(slot, snapshotState?.(slot), mark));
  } catch (err) {
    onError(slot, err as Error);
    return;
  }
  out.codes.push(slot.groupCode);
  out.camSecrets.push(slot.match.playercamSecret);
  out.inputs.push(slot.inputs.n);
  slot.snapshot.event = slot.match.stateVersion;
  slot.snapshot.inputs = slot.inputs.n;
}
