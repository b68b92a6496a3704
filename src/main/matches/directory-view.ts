// The live matches as a process sees them, kept the same way by both MatchDirectory adapters
// (memory: the directory itself; Redis: the view its change messages keep current): records by
// group code, the match-id index of auxiliary routing and the live matches per key id. The port's
// synchronous reads answer from here.
import type { DirectoryRecord } from './match-directory.js';

/** A record as an adapter keeps it (its fields change in place). */
export type DirectoryEntry = { -readonly [K in keyof DirectoryRecord]: DirectoryRecord[K] };

export class DirectoryView {
  protected readonly byCode = new Map<string, DirectoryEntry>();
  private readonly byMatchId = new Map<string, Set<string>>();
  private readonly perKey = new Map<string, number>();

  get(groupCode: string): DirectoryRecord | undefined {
    return this.byCode.get(groupCode);
  }

  count(): number {
    return this.byCode.size;
  }

  countForKey(keyId: string): number {
    return this.perKey.get(keyId) ?? 0;
  }

  all(): IterableIterator<DirectoryRecord> {
    return this.byCode.values();
  }

  groupsForMatchId(matchId: string): ReadonlySet<string> | undefined {
    return this.byMatchId.get(matchId);
  }

  hasPlayer(matchId: string, playerId: string): boolean {
    for (const code of this.byMatchId.get(matchId) ?? []) if (this.byCode.get(code)?.playerIds.has(playerId)) return true;
    return false;
  }

  /** Adds or replaces the record of its code; the indexes follow. */
  protected index(entry: DirectoryEntry): void {
    this.unindex(entry.groupCode);
    this.byCode.set(entry.groupCode, entry);
    if (entry.matchId) {
      let set = this.byMatchId.get(entry.matchId);
      if (!set) this.byMatchId.set(entry.matchId, (set = new Set()));
      set.add(entry.groupCode);
    }
    this.perKey.set(entry.keyId, this.countForKey(entry.keyId) + 1);
  }

  /** The record of `groupCode` out of the view and its indexes; returns it. */
  protected unindex(groupCode: string): DirectoryEntry | undefined {
    const entry = this.byCode.get(groupCode);
    if (!entry) return undefined;
    this.byCode.delete(groupCode);
    if (entry.matchId) {
      const set = this.byMatchId.get(entry.matchId);
      set?.delete(groupCode);
      if (set && set.size === 0) this.byMatchId.delete(entry.matchId);
    }
    const n = this.countForKey(entry.keyId) - 1;
    if (n > 0) this.perKey.set(entry.keyId, n);
    else this.perKey.delete(entry.keyId);
    return entry;
  }

  protected clearView(): void {
    this.byCode.clear();
    this.byMatchId.clear();
    this.perKey.clear();
  }
}
