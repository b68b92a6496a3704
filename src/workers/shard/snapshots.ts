// Snapshots for crash recovery and STATE_DIR (docs/architecture.md, "Crash recovery"): one match's
// text (the shard's bookkeeping and the engine's snapshot, without the player-camera secret, which
// travels beside it), the rounds that take those of the changed matches every SNAPSHOT_INTERVAL_MS
// with the batch mark they cover, and a match rebuilt from its text.
import type { ShardSnapshots } from '../../protocol/shard-messages.js';
import { Match } from '../match/match.js';
import type { SnapshotState } from '../match/snapshot.js';
import type { Slot } from './slot.js';

/** The shard's bookkeeping a restored match keeps. */
export interface SlotMeta {
  lastActivityAt: number;
  lastEventAt: number;
  recordStart: number;
}

/** {"slot":<SlotMeta: numbers only>,"match":<the engine's snapshot>} */
export function snapshotText(slot: Slot, state?: SnapshotState): string {
  const meta: SlotMeta = { lastActivityAt: slot.sent.activityAt, lastEventAt: slot.received.at, recordStart: slot.recordStart };
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

export class SnapshotRounds {
  private lastRoundAt = Date.now();
  private lastMark = -1;

  constructor(private readonly intervalMs: number) {}

  /** Whether a round is due (and, if so, it counts as taken now). */
  due(now: number): boolean {
    if (now - this.lastRoundAt < this.intervalMs) return false;
    this.lastRoundAt = now;
    return true;
  }

  /**
   * Snapshots of the matches that changed since their last one (all with `force`), with `mark`, the
   * last batch mark processed: the main thread can forget the batches up to it. Undefined when
   * nothing changed and the mark is the one last reported.
   */
  take(slots: Iterable<Slot>, mark: number, force: boolean, onError: (slot: Slot, err: Error) => void, snapshotState?: (slot: Slot) => SnapshotState | undefined): ShardSnapshots | undefined {
    const codes: string[] = [];
    const texts: string[] = [];
    const camSecrets: string[] = [];
    for (const slot of slots) {
      if (!force && slot.snapshot.event === slot.match.eventNumber) continue;
      try {
        texts.push(snapshotText(slot, snapshotState?.(slot)));
      } catch (err) {
        onError(slot, err as Error);
        continue;
      }
      codes.push(slot.groupCode);
      camSecrets.push(slot.match.playercamSecret);
      slot.snapshot.event = slot.match.eventNumber;
    }
    if (codes.length === 0 && !force && this.lastMark === mark) return undefined;
    this.lastMark = mark;
    return { mark, codes, texts, camSecrets };
  }
}
