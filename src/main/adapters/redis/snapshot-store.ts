// SnapshotStore on Redis (ports/snapshot-store.ts), shared by every node: each live match's latest
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
// The scripts: lua/snapshots.ts (lua-scripts.ts).
//
// `data` is stored deflated (../snapshot-codec.ts: zlib level 1, behind a one-byte marker): a
// snapshot is most of what a node writes to Redis (~17 kB per changed match per second, against
// ~250 B per frame on the frame bus), and JSON compresses to a fifth of that (docs/benchmarks.md,
// issue 20). Data written as plain JSON by an earlier version is read as before.
import type { Logger } from '../../log.js';
import type { MatchSnapshot, SnapshotStore } from '../../ports/snapshot-store.js';
import { MemorySnapshotStore } from '../memory/snapshot-store.js';
import { packText, unpackText } from '../snapshot-codec.js';
import type { RedisConnection } from './connection.js';

export interface RedisSnapshotStoreOptions {
  log: Logger;
}

/** A SCAN pattern matching exactly the keys that start with `literal`. */
const globPrefix = (literal: string) => literal.replace(/[*?[\]\\]/g, (c) => `\\${c}`) + '*';

export class RedisSnapshotStore implements SnapshotStore {
  readonly durable = true;
  private readonly local = new MemorySnapshotStore();
  private readonly writes = new Set<Promise<unknown>>();
  private readonly log: Logger;

  constructor(private readonly conn: RedisConnection, options: RedisSnapshotStoreOptions) {
    this.log = options.log.child({ module: 'snapshots' });
  }

  put(snapshot: MatchSnapshot): Promise<boolean> {
    if (!this.local.keep(snapshot)) return Promise.resolve(false);
    const data = encodeSnapshot(snapshot);
    return this.track(this.conn.cmd.odsSnapshotPut(this.conn.keys.snapshot(snapshot.groupCode), snapshot.epoch, data).then((r) => r === 1));
  }

  latest(groupCode: string): MatchSnapshot | undefined {
    return this.local.latest(groupCode);
  }

  /** One match's snapshot from Redis (a node adopting another node's match), kept in the local map too. */
  async load(groupCode: string): Promise<MatchSnapshot | undefined> {
    const data = await this.conn.cmd.hgetBuffer(this.conn.keys.snapshot(groupCode), 'data');
    const snapshot = data === null ? undefined : this.parse(groupCode, data);
    if (snapshot) this.local.keep(snapshot);
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
      for (const key of keys) pipeline.hgetBuffer(key, 'data');
      const replies = (await pipeline.exec()) ?? [];
      replies.forEach(([err, data], i) => {
        if (err || !Buffer.isBuffer(data)) return; // deleted since the SCAN saw it
        const snapshot = this.parse(keys[i], data);
        if (!snapshot) return;
        this.local.keep(snapshot);
        out.push(snapshot);
      });
    } while (cursor !== '0');
    return out;
  }

  async delete(groupCode: string, epoch: number): Promise<void> {
    if (!this.local.drop(groupCode, epoch)) return; // this node put a higher epoch
    await this.track(this.conn.cmd.odsSnapshotDelete(this.conn.keys.snapshot(groupCode), epoch));
  }

  async flush(): Promise<void> {
    await Promise.allSettled([...this.writes]);
  }

  /** The local map's timer stops; the connection is the composition root's. */
  close(): void {
    this.local.close();
  }

  private track<T>(write: Promise<T>): Promise<T> {
    this.writes.add(write);
    const done = () => { this.writes.delete(write); };
    write.then(done, done);
    return write;
  }

  private parse(where: string, data: Buffer): MatchSnapshot | undefined {
    try {
      const s = JSON.parse(decodeSnapshot(data)) as MatchSnapshot;
      if (typeof s?.groupCode === 'string' && typeof s.epoch === 'number' && typeof s.text === 'string' && s.match) return s;
    } catch { /* logged below */ }
    this.log.error({ redisKey: where }, 'unreadable snapshot in Redis skipped');
    return undefined;
  }
}

/** A snapshot as stored in Redis: its JSON, packed (deflated behind the marker byte). */
export function encodeSnapshot(snapshot: MatchSnapshot): Buffer {
  return packText(JSON.stringify(snapshot));
}

/** The JSON text of stored data: packed, or plain JSON (written before issue 20). */
export const decodeSnapshot = unpackText;
