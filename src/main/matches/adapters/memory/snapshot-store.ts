// SnapshotStore in memory (matches/snapshot-store.ts): the latest snapshot of each live match, for
// the restart of a shard thread. Fencing: a lower epoch never replaces or deletes a higher one.
//
// A snapshot not replaced for PACK_AFTER_MS (its match stopped changing: agent select, a pause, a
// match whose observer is gone) is kept packed (../snapshot-codec.ts: ~14 kB of text → ~2.5–3.5 kB,
// kept as a latin1 string: on the V8 heap, which compacts, rather than a small malloc'd buffer each,
// which pinned the malloc heap's freed temporaries of the packing), and inflated again by `latest` /
// `loadAll`, which only a shard restart, a takeover or a start call. Not at once: a match that changes is snapshotted every SNAPSHOT_INTERVAL_MS (1 s by
// default), and deflating every snapshot would cost ~35 µs of the main thread each time
// (docs/perf/memory.md); one that stopped is packed once.
import type { MatchSnapshot, SnapshotStore } from '../../snapshot-store.js';
import { packText, unpackText } from '../../snapshot-codec.js';

/** How long a snapshot stays plain text after its put (3 rounds of the default SNAPSHOT_INTERVAL_MS). */
export const PACK_AFTER_MS = 3000;

interface Kept {
  /**
   * The snapshot as put, without its text, and the text's UTF-8 bytes in `bytes`: the match's own
   * buffer, written again by its next put. Not the text itself: a changing match's text (~17 kB) is
   * replaced every SNAPSHOT_INTERVAL_MS, so each one outlived two scavenges and died in the old
   * space, ~25 MB a second of the main thread's major-GC work at 1,500 matches (docs/benchmarks.md,
   * issue 28 "Step 7"); the copy in the buffer lets the text die young. Null once packed.
   */
  plain: { rest: Omit<MatchSnapshot, 'text'>; bytes: Buffer; length: number } | null;
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
    const { text, ...rest } = snapshot;
    const length = Buffer.byteLength(text);
    let bytes = current?.plain?.bytes;
    if (!bytes || bytes.length < length) bytes = Buffer.allocUnsafeSlow(Math.max(1024, Math.ceil(length * 1.25))); // room to grow
    bytes.write(text, 0, length, 'utf8');
    this.byCode.set(snapshot.groupCode, { plain: { rest, bytes, length }, packed: null, epoch: snapshot.epoch });
    this.plainSince.delete(snapshot.groupCode);
    this.plainSince.set(snapshot.groupCode, performance.now());
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.pack(), Math.max(100, this.packAfterMs / 3));
      this.timer.unref();
    }
    return true;
  }

  /** Whether the match's snapshot is kept packed (tests). */
  isPacked(groupCode: string): boolean {
    return this.byCode.get(groupCode)?.packed != null;
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
      kept.packed = { rest: kept.plain.rest, text: packText(plainText(kept.plain)).toString('latin1') };
      kept.plain = null; // its buffer goes too: an idle match keeps the packed text only
    }
    this.close();
  }
}

function plainText(plain: NonNullable<Kept['plain']>): string {
  return plain.bytes.toString('utf8', 0, plain.length);
}

function snapshotOf(kept: Kept): MatchSnapshot {
  if (kept.plain) return { ...kept.plain.rest, text: plainText(kept.plain) };
  return { ...kept.packed!.rest, text: unpackText(Buffer.from(kept.packed!.text, 'latin1')) };
}
