// SnapshotStore in memory (ports/snapshot-store.ts): the latest snapshot of each live match, for
// the restart of a shard thread. Fencing: a lower epoch never replaces or deletes a higher one.
//
// A snapshot not replaced for PACK_AFTER_MS (its match stopped changing: agent select, a pause, a
// match whose observer is gone) is kept packed (../snapshot-codec.ts: ~14 kB of text → ~2.5–3.5 kB,
// kept as a latin1 string: on the V8 heap, which compacts, rather than a small malloc'd buffer each,
// which pinned the malloc heap's freed temporaries of the packing), and inflated again by `latest` /
// `loadAll`, which only a shard restart, a takeover or a start call. Not at once: a match that changes is snapshotted every SNAPSHOT_INTERVAL_MS (1 s by
// default), and deflating every snapshot would cost ~35 µs of the main thread each time
// (docs/perf/memory.md); one that stopped is packed once.
import type { MatchSnapshot, SnapshotStore } from '../../ports/snapshot-store.js';
import { packText, unpackText } from '../snapshot-codec.js';

/** How long a snapshot stays plain text after its put (3 rounds of the default SNAPSHOT_INTERVAL_MS). */
export const PACK_AFTER_MS = 3000;

interface Kept {
  /** The snapshot as put, its text plain; null once packed. */
  plain: MatchSnapshot | null;
  /** The snapshot without its text, and the text packed (its bytes as latin1); null while plain. */
  packed: { rest: Omit<MatchSnapshot, 'text'>; text: string } | null;
  readonly epoch: number;
}

export interface MemorySnapshotStoreOptions {
  /** Tests: how long a snapshot stays plain (default PACK_AFTER_MS). */
  packAfterMs?: number;
}

export class MemorySnapshotStore implements SnapshotStore {
  readonly durable = false;
  private readonly byCode = new Map<string, Kept>();
  /** The plain snapshots' put times, oldest first (a put moves its code to the end). */
  private readonly plainSince = new Map<string, number>();
  private readonly packAfterMs: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: MemorySnapshotStoreOptions = {}) {
    this.packAfterMs = options.packAfterMs ?? PACK_AFTER_MS;
  }

  async put(snapshot: MatchSnapshot): Promise<boolean> {
    return this.keep(snapshot);
  }

  /** `put` in one synchronous step. */
  keep(snapshot: MatchSnapshot): boolean {
    const current = this.byCode.get(snapshot.groupCode);
    if (current && current.epoch > snapshot.epoch) return false;
    this.byCode.set(snapshot.groupCode, { plain: snapshot, packed: null, epoch: snapshot.epoch });
    this.plainSince.delete(snapshot.groupCode);
    this.plainSince.set(snapshot.groupCode, performance.now());
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.pack(), Math.max(100, this.packAfterMs / 3));
      this.timer.unref();
    }
    return true;
  }

  latest(groupCode: string): MatchSnapshot | undefined {
    const kept = this.byCode.get(groupCode);
    return kept && snapshotOf(kept);
  }

  async loadAll(): Promise<MatchSnapshot[]> {
    return [...this.byCode.values()].map(snapshotOf);
  }

  async delete(groupCode: string, epoch: number): Promise<void> {
    this.drop(groupCode, epoch);
  }

  /** `delete` in one synchronous step; false when a higher epoch's snapshot is kept. */
  drop(groupCode: string, epoch: number): boolean {
    const current = this.byCode.get(groupCode);
    if (current && current.epoch > epoch) return false;
    this.byCode.delete(groupCode);
    this.plainSince.delete(groupCode);
    return true;
  }

  async flush(): Promise<void> {}

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Packs the snapshots kept plain for packAfterMs; the timer stops when none is left plain. */
  private pack(): void {
    const before = performance.now() - this.packAfterMs;
    for (const [code, since] of this.plainSince) {
      if (since > before) return; // the rest were put later
      this.plainSince.delete(code);
      const kept = this.byCode.get(code);
      if (!kept?.plain) continue;
      const { text, ...rest } = kept.plain;
      kept.packed = { rest, text: packText(text).toString('latin1') };
      kept.plain = null;
    }
    this.close();
  }
}

function snapshotOf(kept: Kept): MatchSnapshot {
  return kept.plain ?? { ...kept.packed!.rest, text: unpackText(Buffer.from(kept.packed!.text, 'latin1')) };
}
