// Snapshots for crash recovery and STATE_DIR (docs/architecture.md, "Crash recovery"): one match's
// text (the shard's bookkeeping and the engine's snapshot, without the player-camera secret, which
// travels beside it), the queue that takes those of the changed matches SNAPSHOT_INTERVAL_MS after
// they changed, spread over the cycles, with the batch marks they cover, and a match rebuilt from its text.
import type { ShardSnapshots } from '../../protocol/shard-messages.js';
import { Match } from '../match/match.js';
import type { Slot } from './slot.js';

/** The shard's bookkeeping a restored match keeps. */
export interface SlotMeta {
  lastActivityAt: number;
  lastEventAt: number;
  recordStart: number;
}

/** {"slot":<SlotMeta: numbers only>,"match":<the engine's snapshot>} */
export function snapshotText(slot: Slot): string {
  const meta: SlotMeta = { lastActivityAt: slot.lastActivityAt, lastEventAt: slot.lastEventAt, recordStart: slot.recordStart };
  return '{"slot":' + JSON.stringify(meta) + ',"match":' + slot.match.toSnapshot() + '}';
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
 * The snapshots of changed matches, spread over the interval instead of one round for all: a match
 * is queued when it first changes after its last snapshot (`dirtyFrom`: the first batch mark that
 * changed it) and snapshotted SNAPSHOT_INTERVAL_MS later, at most a share of the queue per cycle.
 * Each snapshot carries the mark it covers (the last batch processed), and every output the mark
 * all matches cover (the oldest queued match's dirtyFrom - 1): the pool forgets the batches up to
 * that one, and after a crash a restored match skips the re-posted batches its own snapshot already
 * holds (Shard.replayed; docs/architecture.md, "Crash recovery").
 */
export class SnapshotRounds {
  /** Changed since their last snapshot, in the order they changed. */
  private readonly dirty = new Set<Slot>();
  private lastMark = -1;

  constructor(private readonly intervalMs: number, private readonly cycleMs: number) {}

  /** The match may have changed at batch mark `mark` + 1 (the batch being processed): queued if it did. */
  changed(slot: Slot, mark: number): void {
    if (slot.snapshotEvent === slot.match.eventNumber || this.dirty.has(slot)) return;
    slot.dirtyFrom = mark + 1;
    slot.dirtyAt = Date.now();
    this.dirty.add(slot);
  }

  forget(slot: Slot): void {
    this.dirty.delete(slot);
  }

  /**
   * This cycle's snapshots (`all`: every match in `slots` now, the shutdown drain), with `mark`, the
   * last batch mark processed. Undefined when none was taken and the covered mark was already reported.
   */
  take(slots: Iterable<Slot>, mark: number, now: number, all: boolean, onError: (slot: Slot, err: Error) => void): ShardSnapshots | undefined {
    const snaps: ShardSnapshots = { mark, codes: [], texts: [], camSecrets: [], marks: [] };
    if (all) {
      for (const slot of slots) this.snapshot(slot, mark, snaps, onError);
      this.dirty.clear();
    } else {
      // A share of the queue per cycle, so that a burst of changes (every match in one batch) is spread too.
      let budget = Math.ceil((this.dirty.size * this.cycleMs * 2) / this.intervalMs);
      const due = now - this.intervalMs;
      for (const slot of this.dirty) {
        if (slot.dirtyAt > due || budget-- <= 0) break;
        this.dirty.delete(slot);
        this.snapshot(slot, mark, snaps, onError);
      }
      for (const oldest of this.dirty) {
        snaps.mark = oldest.dirtyFrom - 1;
        break;
      }
    }
    if (snaps.codes.length === 0 && this.lastMark === snaps.mark) return undefined;
    this.lastMark = snaps.mark;
    return snaps;
  }

  private snapshot(slot: Slot, mark: number, snaps: ShardSnapshots, onError: (slot: Slot, err: Error) => void): void {
    try {
      snaps.texts.push(snapshotText(slot));
    } catch (err) {
      onError(slot, err as Error);
      return;
    }
    snaps.codes.push(slot.groupCode);
    snaps.camSecrets.push(slot.match.playercamSecret);
    snaps.marks.push(mark);
    slot.snapshotEvent = slot.match.eventNumber;
  }
}
