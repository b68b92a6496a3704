// MatchDirectory on Redis (matches/match-directory.ts): the shared directory of N nodes.
//
// Redis holds the truth: per code the record (`match:<code>`, directory-records.ts), the lease
// (`lease:<code>` = "<nodeId> <epoch>", PX = the lease TTL), the set of live codes (`matches`), the
// live count per key id (`perkey:<keyId>`) and the epoch counter (`epoch`). Every change is one Lua
// script (lua/directory.ts) that also publishes it on the directory channel.
//
// The sync reads answer from the view (directory-sync.ts). This file makes the writes: claims (the
// claim script takes the lease too), field updates and releases, applied to the view at once, sent
// in order on the command connection, and sent again when Redis is back if they failed. Which node
// runs each match (lease renewal, adoption, hand-over) is the ownership adapter's
// (match-ownership.ts), which watches this node's claims here (ClaimWatcher).
import type { DirectoryEntry } from '../../directory-view.js';
import type { Logger } from '../../../base/log.js';
import type { Claim, ClaimOptions, MatchDirectory, DirectoryRecord, NewMatch } from '../../match-directory.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { storedJson, toEntry, toStored, type Stored } from './directory-records.js';
import { RedisDirectoryView, type ClaimWatcher, type Field, type FieldValue } from './directory-sync.js';

/** How long a released code remembers the epoch it ended under (keys.ts `ended`): the longest a frozen node can wake up and still be told its match is gone rather than re-assert it. */
const ENDED_TTL_MS = 3_600_000;

export interface RedisMatchDirectoryOptions {
  /** REDIS_LEASE_TTL_MS (the claim script takes the lease). */
  leaseTtlMs: number;
  log: Logger;
}

export type ClaimReply = { status: 'ok'; record: Stored } | { status: 'taken'; record: Stored } | { status: 'capacity' } | { status: 'key_capacity' };

export class RedisMatchDirectory extends RedisDirectoryView implements MatchDirectory {
  private readonly ttl: number;
  private readonly failedReleases = new Map<string, { epoch: number; keyId: string }>();
  private unsubscribe: (() => void) | null = null;
  private offStatus: (() => void) | null = null;

  private constructor(conn: RedisConnection, options: RedisMatchDirectoryOptions) {
    super(conn, options.log);
    this.ttl = options.leaseTtlMs;
  }

  /** Subscribes to the directory channel and loads the view. */
  static async open(conn: RedisConnection, options: RedisMatchDirectoryOptions): Promise<RedisMatchDirectory> {
    const dir = new RedisMatchDirectory(conn, options);
    const sub = conn.subscribe(conn.keys.directoryChannel, (m) => dir.onMessage(m));
    dir.unsubscribe = sub.unsubscribe;
    try {
      await sub;
      await dir.reload(true);
    } catch (err) {
      dir.close();
      throw err;
    }
    dir.offStatus = conn.onStatus((up) => { if (up) void dir.recover(); });
    return dir;
  }

  // ---- MatchDirectory -------------------------------------------------------------------------

  async claim(match: NewMatch, options: ClaimOptions = {}): Promise<Claim> {
    const result = await this.claimScript(toStored({ ...match, matchId: match.matchId ?? '', playerIds: [], epoch: 0 }, ''), options);
    if (result.status === 'capacity' || result.status === 'key_capacity') return { ok: false, reason: result.status };
    if (result.status === 'taken') return { ok: false, reason: 'taken', record: toEntry(result.record) };
    const entry = this.installReply(result.record);
    this.watcher?.claimed(entry);
    return { ok: true, record: entry };
  }

  release(groupCode: string, epoch: number): DirectoryRecord | undefined {
    const entry = this.byCode.get(groupCode);
    if (!entry || entry.epoch !== epoch) return undefined;
    this.remove(groupCode);
    this.overlay.delete(groupCode);
    this.watcher?.released(groupCode, epoch);
    this.sendRelease(groupCode, epoch, entry.keyId);
    return entry;
  }

  setMatchId(groupCode: string, matchId: string): void {
    this.localWrite(groupCode, 'matchId', matchId);
  }

  setRoster(groupCode: string, playerIds: readonly string[]): void {
    this.localWrite(groupCode, 'playerIds', [...playerIds]);
  }

  setSecretDigest(groupCode: string, digest: string): boolean {
    return this.localWrite(groupCode, 'secretDigest', digest);
  }

  /** Stops listening (a watcher's leases are its own to stop); the connection is the caller's. */
  close(): void {
    if (this.closed) return;
    this.stopSync();
    this.unsubscribe?.();
    this.offStatus?.();
  }

  // ---- For the ownership adapter (match-ownership.ts) ---------------------------------------------

  /** The ownership of this node: told of its claims, and asked to renew before a reload after an outage. */
  watch(watcher: ClaimWatcher): void {
    this.watcher = watcher;
  }

  /** The claim script: its status and the record (the claimed one, or the live one when taken). */
  async claimScript(stored: Stored, options: ClaimOptions): Promise<ClaimReply> {
    const seq = ++this.writeSeq;
    const k = this.keys;
    const code = stored.base.groupCode;
    const limits = options.limits;
    const [status, rec] = await this.lua.odsDirClaim(
      k.lease(code), k.match(code), k.matches, k.perKey(stored.base.keyId), k.epoch,
      this.nodeId, this.ttl, options.after ?? 0, limits ? limits.maxLive : '', limits ? limits.maxPerKey : '',
      storedJson(stored), k.directoryChannel, seq, code);
    if (status === 'capacity' || status === 'key_capacity') return { status };
    // With Sentinel, a claim is a replica's before the node runs the match: a failover cannot undo it.
    if (status === 'ok') await this.conn.replicated();
    if (status === 'ok' || status === 'taken') return { status, record: JSON.parse(rec!) as Stored };
    throw new Error(`unexpected claim reply ${status}`);
  }

  /** The adopt script: the orphan's record with this node's lease and a new epoch, in the view; undefined when it is no orphan. */
  async adoptScript(groupCode: string, after: number): Promise<DirectoryEntry | undefined> {
    const seq = ++this.writeSeq;
    const k = this.keys;
    const rec = await this.lua.odsDirAdopt(k.lease(groupCode), k.match(groupCode), k.matches, k.epoch,
      this.nodeId, this.ttl, after, k.directoryChannel, seq, groupCode);
    if (rec === null) return undefined;
    await this.conn.replicated(); // as for a claim
    return this.installReply(JSON.parse(rec) as Stored);
  }

  /** A record a script of this node just wrote: into the view unless the view has it already (a message may have brought later changes). */
  installReply(stored: Stored): DirectoryEntry {
    const code = stored.base.groupCode;
    const cur = this.byCode.get(code);
    if (cur && cur.epoch >= stored.epoch) return cur;
    const entry = toEntry(stored);
    this.put(entry, stored.owner);
    return entry;
  }

  sendRelease(code: string, epoch: number, keyId: string): void {
    const seq = ++this.writeSeq;
    this.releasing.set(code, { epoch, seq });
    this.failedReleases.delete(code);
    const k = this.keys;
    this.lua.odsDirRelease(k.lease(code), k.match(code), k.matches, k.perKey(keyId), k.ended(code), this.nodeId, epoch, k.directoryChannel, seq, code, ENDED_TTL_MS).then(
      (done) => {
        if (done === 0 && this.releasing.get(code)?.seq === seq) this.releasing.delete(code);
      },
      (err: Error) => {
        const pending = this.releasing.get(code);
        if (pending && pending.seq === seq) pending.seq = Infinity;
        this.failedReleases.set(code, { epoch, keyId });
        this.warnLimited('write', { groupCode: code, error: err.message }, 'directory release failed (retried when redis is back)');
      });
  }

  // ---- Writes -----------------------------------------------------------------------------------

  private localWrite(groupCode: string, field: Field, value: FieldValue): boolean {
    const cur = this.byCode.get(groupCode);
    if (!cur) return false;
    const next: DirectoryEntry = { ...cur };
    if (field === 'playerIds') next.playerIds = new Set(value as readonly string[]);
    else next[field] = value as string;
    this.put(next, this.ownerOf(groupCode) ?? '');
    let ov = this.overlay.get(groupCode);
    if (!ov || ov.epoch !== cur.epoch) this.overlay.set(groupCode, (ov = { epoch: cur.epoch, fields: new Map() }));
    const seq = ++this.writeSeq;
    ov.fields.set(field, { value, seq });
    this.sendUpdate(groupCode, cur.epoch, field, value, seq);
    return true;
  }

  private sendUpdate(code: string, epoch: number, field: Field, value: FieldValue, seq: number): void {
    const arg = field === 'playerIds' ? JSON.stringify(value) : (value as string);
    this.lua.odsDirUpdate(this.keys.match(code), this.nodeId, epoch, field, arg, this.keys.directoryChannel, seq).then(
      (done) => {
        // Not that claim's record any more: what the messages say stands.
        if (done === 0) this.dropOverlay(code, field, seq);
      },
      (err: Error) => {
        // Kept in the view and written again when Redis is back.
        const pending = this.overlay.get(code)?.fields.get(field);
        if (pending && pending.seq === seq) pending.seq = Infinity;
        this.warnLimited('write', { groupCode: code, field, error: err.message }, 'directory update failed (retried when redis is back)');
      });
  }

  private dropOverlay(code: string, field: Field, seq: number): void {
    const ov = this.overlay.get(code);
    if (ov?.fields.get(field)?.seq !== seq) return;
    ov.fields.delete(field);
    if (ov.fields.size === 0) this.overlay.delete(code);
  }

  /** After an outage: the writes that failed, again. */
  private retryFailedWrites(): void {
    for (const [code, { epoch, keyId }] of [...this.failedReleases]) this.sendRelease(code, epoch, keyId);
    for (const [code, ov] of this.overlay) {
      for (const [field, pending] of ov.fields) {
        if (pending.seq !== Infinity) continue;
        pending.seq = ++this.writeSeq;
        this.sendUpdate(code, ov.epoch, field, pending.value, pending.seq);
      }
    }
  }

  /** Redis is reachable again: failed writes again, the leases renewed (the watcher), the view reloaded. */
  private async recover(): Promise<void> {
    if (this.closed) return;
    try {
      this.retryFailedWrites();
      await this.watcher?.recover();
      await this.reload();
    } catch (err) {
      this.log.warn({ error: (err as Error).message }, 'directory recovery after redis outage failed');
    }
  }
}
