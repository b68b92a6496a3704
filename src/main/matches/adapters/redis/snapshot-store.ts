// SnapshotStore on Redis (matches/snapshot-store.ts), shared by every node: each live match's latest
// snapshot is a hash under keys.snapshot(code) with its owner's `epoch` and `data` (the snapshot as
// JSON: the shard's text, which holds no player-camera secret, and the directory record, which
// holds the group secret's digest only). Writes are fenced by a script comparing the epochs (a
// stale owner neither replaces nor deletes its successor's snapshot); no expiry: a snapshot lives
// until its match is deleted (an orphan's snapshot is what its adopter resumes from).
//
// `latest` is synchronous (a shard restart rebuilds its matches in the same turn): it answers from
// a local map of what this node put or loaded (`load` for one match a node adopts, `loadAll` at
// start), kept whatever Redis answers, so a shard that dies during a Redis outage still restarts
// from its latest snapshot. `put` returns false when the local map or Redis holds a higher epoch.
// The scripts: lua/snapshots.ts.
//
// A snapshot is most of what a node writes to Redis (~17 kB per changed match per second, against
// ~250 B per frame on the frame bus), so it is stored deflated, and most puts as a delta against a
// base written every BASE_EVERY puts in the same hash (snapshot-format.ts; docs/benchmarks.md,
// issue 20): a delta is sent only once its base's write was confirmed, and a new owner's first put
// writes a base, as does every match's first put after a Redis outage. A put can wait for the
// match's events to be in the shared outbox (`after`; events/outbox-share.ts says why). Data written by earlier
// versions (deflated whole, or plain JSON) reads as before.
import type { Logger } from '../../../base/log.js';
import type { MatchCreation, MatchSnapshot, SnapshotMatch, SnapshotStore } from '../../snapshot-store.js';
import { MemorySnapshotStore } from '../memory/snapshot-store.js';
import { BASE_EVERY, DATA_IS_BASE, decodeStored, encodeBase, encodeDelta } from './snapshot-format.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { SNAPSHOTS_SCRIPTS } from './lua/snapshots.js';

export interface RedisSnapshotStoreOptions {
  log: Logger;
}

/** The base a match's puts are deltas against: the owner epoch it was written under, its id and JSON. */
interface Base { epoch: number; id: number; json: Buffer; puts: number; confirmed: boolean }

/** A SCAN pattern matching exactly the keys that start with `literal`. */
const globPrefix = (literal: string) => literal.replace(/[*?[\]\\]/g, (c) => `\\${c}`) + '*';

export class RedisSnapshotStore implements SnapshotStore {
  readonly durable = true;
  private readonly local = new MemorySnapshotStore();
  private readonly writes = new Set<Promise<unknown>>();
  private readonly log: Logger;
  private readonly bases = new Map<string, Base>();
  /** Snapshots whose write waits (`put`'s `after`), by group code: the newest only. */
  private readonly deferred = new Map<string, { snapshot: MatchSnapshot; resolve: (written: boolean) => void; reject: (err: Error) => void }>();
  private nextBaseId = 1;
  private readonly offStatus: () => void;

  /** The command connection with this store's scripts (lua/snapshots.ts). */
  private get lua() { return this.conn.scripts(SNAPSHOTS_SCRIPTS); }

  constructor(private readonly conn: RedisConnection, options: RedisSnapshotStoreOptions) {
    this.log = options.log.child({ module: 'snapshots' });
    // Redis lost or back: the bases it confirmed may be gone (a restart without persistence, a
    // failover to a replica that missed the last writes), and a delta against a missing base is
    // unreadable: every match's next put writes a base again.
    this.offStatus = conn.onStatus(() => this.bases.clear());
  }

  put(snapshot: MatchSnapshot, after?: Promise<void>): Promise<boolean> {
    if (!this.local.keep(snapshot)) return Promise.resolve(false);
    const { groupCode } = snapshot;
    const waiting = this.deferred.get(groupCode);
    if (!after) {
      if (waiting) this.dropDeferred(groupCode);
      return this.write(snapshot);
    }
    // Its match's events are not all in the shared outbox yet: written once they are; a newer
    // snapshot meanwhile replaces it (one wait per match, however long Redis refuses writes).
    return new Promise<boolean>((resolve, reject) => {
      if (waiting) {
        waiting.resolve(false);
        Object.assign(waiting, { snapshot, resolve, reject });
        return;
      }
      this.deferred.set(groupCode, { snapshot, resolve, reject });
      void after.then(() => {
        const entry = this.deferred.get(groupCode);
        if (!entry) return;
        this.deferred.delete(groupCode);
        this.write(entry.snapshot).then(entry.resolve, entry.reject);
      });
    });
  }

  /** A waiting snapshot that will not be written (replaced by one written at once, or its match deleted). */
  private dropDeferred(groupCode: string): void {
    const entry = this.deferred.get(groupCode);
    if (!entry) return;
    this.deferred.delete(groupCode);
    entry.resolve(false);
  }

  private write(snapshot: MatchSnapshot): Promise<boolean> {
    const { groupCode, epoch } = snapshot;
    const key = this.conn.keys.snapshot(groupCode);
    const json = Buffer.from(JSON.stringify(snapshot));
    const base = this.bases.get(groupCode);
    if (base && base.epoch === epoch && base.confirmed && base.puts < BASE_EVERY) {
      base.puts++;
      return this.track(this.lua.odsSnapshotPut(key, epoch, encodeDelta(base.id, json, base.json)).then((r) => r === 1));
    }
    // A base round: the snapshot is the new base; deltas follow once Redis confirmed it.
    const fresh: Base = { epoch, id: this.nextBaseId, json, puts: 1, confirmed: false };
    this.nextBaseId = (this.nextBaseId % 0xffffffff) + 1;
    this.bases.set(groupCode, fresh);
    return this.track(this.lua.odsSnapshotPut(key, epoch, DATA_IS_BASE, encodeBase(fresh.id, json)).then((r) => {
      if (r === 1 && this.bases.get(groupCode) === fresh) fresh.confirmed = true;
      return r === 1;
    }));
  }

  /** A logon's creation, as a snapshot with `created` (not in the local map: never `latest`); awaited before the logon's ack. */
  async keepCreated(match: SnapshotMatch, epoch: number, created: MatchCreation): Promise<void> {
    const groupCode = match.groupCode;
    try {
      if (!(await this.write({ groupCode, epoch, text: '', match, savedAt: Date.now(), created }))) this.log.warn({ groupCode, epoch }, 'match creation not kept: a higher epoch holds the code');
    } catch (err) {
      this.log.warn({ groupCode, error: (err as Error).message }, 'match creation not kept in Redis: a takeover before its first snapshot would lose the match');
    }
  }

  latest(groupCode: string): MatchSnapshot | undefined {
    return this.local.latest(groupCode);
  }

  /** One match's snapshot from Redis (a node adopting another node's match), kept in the local map too. */
  async load(groupCode: string): Promise<MatchSnapshot | undefined> {
    const [data, base] = await this.conn.cmd.hmgetBuffer(this.conn.keys.snapshot(groupCode), 'data', 'base');
    const snapshot = data === null ? undefined : this.parse(groupCode, data, base);
    if (snapshot && !snapshot.created) this.local.keep(snapshot);
    return snapshot;
  }

  async loadAll(): Promise<MatchSnapshot[]> {
    const pattern = globPrefix(this.conn.keys.snapshot(''));
    const out: MatchSnapshot[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await this.conn.cmd.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length === 0) continue;
      const pipeline = this.conn.cmd.pipeline();
      for (const key of keys) pipeline.hmgetBuffer(key, 'data', 'base');
      const replies = (await pipeline.exec()) ?? [];
      replies.forEach(([err, fields], i) => {
        const [data, base] = (fields ?? []) as (Buffer | null)[];
        if (err || !Buffer.isBuffer(data)) return; // deleted since the SCAN saw it
        const snapshot = this.parse(keys[i], data, base ?? null);
        if (!snapshot) return;
        if (!snapshot.created) this.local.keep(snapshot);
        out.push(snapshot);
      });
    } while (cursor !== '0');
    return out;
  }

  async delete(groupCode: string, epoch: number): Promise<void> {
    if (!this.local.drop(groupCode, epoch)) return; // this node put a higher epoch
    this.bases.delete(groupCode);
    this.dropDeferred(groupCode);
    await this.track(this.lua.odsSnapshotDelete(this.conn.keys.snapshot(groupCode), epoch));
  }

  async flush(): Promise<void> {
    await Promise.allSettled([...this.writes]);
  }

  /** The local map's timer stops; the connection is the composition root's. */
  close(): void {
    this.offStatus();
    this.local.close();
  }

  private track<T>(write: Promise<T>): Promise<T> {
    this.writes.add(write);
    const done = () => { this.writes.delete(write); };
    write.then(done, done);
    return write;
  }

  private parse(where: string, data: Buffer, base: Buffer | null): MatchSnapshot | undefined {
    try {
      const s = JSON.parse(decodeStored(data, base)) as MatchSnapshot;
      if (typeof s?.groupCode === 'string' && typeof s.epoch === 'number' && typeof s.text === 'string' && s.match) return s;
    } catch { /* logged below */ }
    this.log.error({ redisKey: where }, 'unreadable snapshot in Redis skipped');
    return undefined;
  }
}

/** The JSON text of a snapshot hash's `data` and `base` (tests read what is stored). */
export const decodeSnapshot = decodeStored;
