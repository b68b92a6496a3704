// SnapshotStore in memory (ports/snapshot-store.ts): the latest snapshot of each live match, for
// the restart of a shard thread. Fencing: a lower epoch never replaces or deletes a higher one.
import type { MatchSnapshot, SnapshotStore } from '../../ports/snapshot-store.js';

export class MemorySnapshotStore implements SnapshotStore {
  readonly durable = false;
  private readonly byCode = new Map<string, MatchSnapshot>();

  async put(snapshot: MatchSnapshot): Promise<boolean> {
    return this.keep(snapshot);
  }

  /** `put` in one synchronous step. */
  keep(snapshot: MatchSnapshot): boolean {
    const current = this.byCode.get(snapshot.groupCode);
    if (current && current.epoch > snapshot.epoch) return false;
    this.byCode.set(snapshot.groupCode, snapshot);
    return true;
  }

  latest(groupCode: string): MatchSnapshot | undefined {
    return this.byCode.get(groupCode);
  }

  async loadAll(): Promise<MatchSnapshot[]> {
    return [...this.byCode.values()];
  }

  async delete(groupCode: string, epoch: number): Promise<void> {
    this.drop(groupCode, epoch);
  }

  /** `delete` in one synchronous step; false when a higher epoch's snapshot is kept. */
  drop(groupCode: string, epoch: number): boolean {
    const current = this.byCode.get(groupCode);
    if (current && current.epoch > epoch) return false;
    this.byCode.delete(groupCode);
    return true;
  }

  async flush(): Promise<void> {}

  close(): void {}
}
