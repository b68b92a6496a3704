// SnapshotStore on STATE_DIR (matches/snapshot-store.ts): the memory adapter, and every snapshot it
// keeps written to the match's file as well (with its directory record), every deletion deleting
// the file; at start, the files are what loadAll returns. A match's creation (an observer logon) is
// written at once, synchronously, to its own file (files.ts), and loaded as a snapshot with `created`
// until a snapshot of the same match replaces it.
import type { MatchCreation, MatchSnapshot, SnapshotMatch, SnapshotStore } from '../../snapshot-store.js';
import { MemorySnapshotStore } from '../memory/snapshot-store.js';
import { STATE_VERSION, type PersistedMatch, type StateFiles } from '../../../state-dir/files.js';

const toFile = (s: MatchSnapshot): PersistedMatch => {
  const m = s.match;
  return {
    v: STATE_VERSION, groupCode: s.groupCode, secretHash: m.secretDigest, matchId: m.matchId, organizationId: m.organizationId,
    isSupporter: m.isSupporter, keyId: m.keyId, createdAt: m.createdAt, teams: m.teams, snapshot: s.text, savedAt: s.savedAt, epoch: s.epoch,
    ...(s.created ? { created: { now: s.created.now, logon: s.created.logon } } : {}),
  };
};

const fromFile = (f: PersistedMatch): MatchSnapshot => ({
  groupCode: f.groupCode, epoch: f.epoch ?? 0, text: f.snapshot, savedAt: f.savedAt,
  match: {
    groupCode: f.groupCode, secretDigest: f.secretHash, matchId: f.matchId, organizationId: f.organizationId, isSupporter: f.isSupporter,
    keyId: f.keyId ?? '', createdAt: f.createdAt, teams: f.teams,
  },
  ...(f.created ? { created: { now: f.created.now, logon: f.created.logon as MatchCreation['logon'] } } : {}),
});

export class StateDirSnapshotStore implements SnapshotStore {
  readonly durable = true;
  private readonly memory = new MemorySnapshotStore();

  constructor(private readonly files: StateFiles) {}

  /**
   * Synchronous body: a deletion queued after this put is queued after its write too. Resolves once
   * the snapshot (or a later one of the match) is on disk: true; false when the store holds a
   * higher epoch's or the write failed (`latest` has it at once either way).
   */
  put(snapshot: MatchSnapshot): Promise<boolean> {
    if (!this.memory.keep(snapshot)) return Promise.resolve(false);
    return this.files.writeMatch(toFile(snapshot));
  }

  /** Synchronous: on disk before the logon is answered. */
  keepCreated(match: SnapshotMatch, epoch: number, created: MatchCreation): void {
    this.files.writeCreatedSync(toFile({ groupCode: match.groupCode, epoch, text: '', match, savedAt: Date.now(), created }));
  }

  latest(groupCode: string): MatchSnapshot | undefined {
    return this.memory.latest(groupCode);
  }

  async loadAll(): Promise<MatchSnapshot[]> {
    await this.files.flush(); // what this process queued lands first
    const list = this.files.loadMatches().map(fromFile);
    // A creation is no shard snapshot: never `latest` (a shard restart could not rebuild from it).
    for (const s of list) if (!s.created) this.memory.keep(s);
    return [...(await this.memory.loadAll()), ...list.filter((s) => s.created)];
  }

  async delete(groupCode: string, epoch: number): Promise<void> {
    if (this.memory.drop(groupCode, epoch)) this.files.deleteMatch(groupCode);
  }

  flush(): Promise<void> {
    return this.files.flush();
  }

  /** The memory map's timer stops (the files are written by StateFiles). */
  close(): void {
    this.memory.close();
  }
}
