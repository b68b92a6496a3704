// MatchDirectory and MatchOwnership on Redis (ports/match-directory.ts, ports/match-ownership.ts):
// the shared directory of N nodes, and which node runs each match.
//
// Redis holds the truth: per code the record (`match:<code>`, JSON: the mutable fields first, the
// claim's fixed fields last under "base", so a script can change a field without re-encoding the
// teams), the lease (`lease:<code>` = "<nodeId> <epoch>", PX = the lease TTL), the set of live codes
// (`matches`), the live count per key id (`perkey:<keyId>`) and the epoch counter (`epoch`). Every
// change is made by one Lua script that also PUBLISHes the change (the full record, or the removal)
// on the directory channel, so the messages are in exactly the order of the changes, for every node.
//
// The view: the sync reads answer from memory (the memory adapter's indexes), kept current by
// those messages. It is loaded at open and after every Redis outage by a script that returns every
// record and publishes a marker: the messages before the marker are in the loaded records, the ones
// after it are applied on top. This node's own updates (setMatchId, setRoster, setSecretDigest,
// release) apply to the view at once; until the message of that write (or a later write of this
// node: one connection, executed in order) has come back, an older message of the same record
// cannot undo them in the view (an overlay of pending fields, a tombstone of a pending release).
//
// Ownership: the claim script takes the lease; every third of the TTL one script renews the leases
// of every code this node owns (ports/match-ownership.ts says what each outcome means).
import { DirectoryView, type DirectoryEntry } from '../directory-view.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../log.js';
import type { Claim, ClaimOptions, MatchDirectory, MatchRecord, NewMatch } from '../../ports/match-directory.js';
import type { MatchOwnership } from '../../ports/match-ownership.js';
import type { RedisConnection } from './connection.js';

export interface RedisMatchDirectoryOptions {
  /** REDIS_LEASE_TTL_MS. */
  leaseTtlMs: number;
  log: Logger;
  /** How often the leases are renewed (default: a third of the TTL). Tests set it long to pause a node. */
  renewIntervalMs?: number;
}

type Entry = DirectoryEntry;
type Field = 'matchId' | 'playerIds' | 'secretDigest';
type FieldValue = string | readonly string[];


interface Stored {
  epoch: number;
  owner: string;
  matchId: string;
  secretDigest: string;
  playerIds: string[];
  base: { groupCode: string; organizationId: string; isSupporter: boolean; keyId: string; createdAt: number; teams: MatchRecord['teams'] };
}

type Message =
  | { t: 'set'; w: string; s: number; r: Stored }
  | { t: 'del'; w: string; s: number; c: string; e: number }
  | { t: 'mark'; id: string };

type Arg = string | number;
interface DirectoryScripts {
  odsDirClaim(...args: Arg[]): Promise<[string, string?]>;
  odsDirRelease(...args: Arg[]): Promise<number>;
  odsDirUpdate(...args: Arg[]): Promise<number>;
  odsDirRenew(...args: Arg[]): Promise<number[]>;
  odsDirAdopt(...args: Arg[]): Promise<string | null>;
  odsDirOrphans(...args: Arg[]): Promise<string[]>;
  odsDirLoad(...args: Arg[]): Promise<string[]>;
}

/** Codes per renewal script call. */
const RENEW_BATCH = 200;
/** How long a load waits for its marker to come back on the channel. */
const MARK_TIMEOUT_MS = 10_000;
/** Repeated failures (renewal, writes) are logged once per this interval. */
const LOG_EVERY_MS = 10_000;

const NO_PLAYERS: ReadonlySet<string> = new Set();

function storedJson(s: Stored): string {
  return `{"epoch":${s.epoch},"owner":${JSON.stringify(s.owner)},"matchId":${JSON.stringify(s.matchId)},"secretDigest":${JSON.stringify(s.secretDigest)},"playerIds":${JSON.stringify(s.playerIds)},"base":${JSON.stringify(s.base)}}`;
}

function toEntry(s: Stored): Entry {
  return {
    groupCode: s.base.groupCode, secretDigest: s.secretDigest, matchId: s.matchId, organizationId: s.base.organizationId,
    isSupporter: s.base.isSupporter, keyId: s.base.keyId, createdAt: s.base.createdAt, teams: s.base.teams,
    playerIds: s.playerIds.length > 0 ? new Set(s.playerIds) : NO_PLAYERS, epoch: s.epoch,
  };
}

function toStored(r: Omit<MatchRecord, 'playerIds'> & { playerIds: Iterable<string> }, owner: string): Stored {
  return {
    epoch: r.epoch, owner, matchId: r.matchId, secretDigest: r.secretDigest, playerIds: [...r.playerIds],
    base: { groupCode: r.groupCode, organizationId: r.organizationId, isSupporter: r.isSupporter, keyId: r.keyId, createdAt: r.createdAt, teams: r.teams },
  };
}

interface Loading {
  id: string;
  /** Every message since the load began; `markAt`: where its marker came. */
  buffer: Message[];
  markAt: number;
  marked: () => void;
}

export class RedisMatchDirectory extends DirectoryView implements MatchDirectory, MatchOwnership {
  readonly nodeId: string;
  private readonly keys: RedisConnection['keys'];
  private readonly scripts: DirectoryScripts;
  private readonly log: Logger;
  private readonly ttl: number;
  private readonly renewIntervalMs: number;

  // The view (adapters/directory-view.ts, as the memory adapter's), and each record's owner node.
  private readonly owners = new Map<string, string>();

  // This node's writes: numbered; `ownSeen` = the highest number whose message came back.
  private writeSeq = 0;
  private ownSeen = 0;
  /** Fields written here whose message has not come back (seq Infinity: failed, retried on reconnection). */
  private readonly overlay = new Map<string, { epoch: number; fields: Map<Field, { value: FieldValue; seq: number }> }>();
  /** Releases made here whose message has not come back: older messages of the record are ignored. */
  private readonly releasing = new Map<string, { epoch: number; seq: number }>();
  private readonly failedReleases = new Map<string, { epoch: number; keyId: string }>();

  // Ownership: the codes this node holds the lease of, with their current record.
  private readonly owned = new Map<string, Entry>();
  private readonly lostListeners = new Set<(groupCode: string, epoch: number) => void>();
  private readonly reassertedListeners = new Set<(record: MatchRecord) => void>();

  private loading: Loading | null = null;
  private reloading: Promise<void> | null = null;
  private reloadAgain = false;
  private renewing: Promise<void> | null = null;
  private readonly markWaiters = new Map<string, () => void>();
  private renewTimer: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private offStatus: (() => void) | null = null;
  private closed = false;
  private readonly lastLog = new Map<string, number>();

  private constructor(private readonly conn: RedisConnection, options: RedisMatchDirectoryOptions) {
    super();
    this.nodeId = conn.nodeId;
    this.keys = conn.keys;
    this.ttl = options.leaseTtlMs;
    this.log = options.log.child({ module: 'redis-directory' });
    for (const [name, def] of Object.entries(SCRIPTS)) conn.cmd.defineCommand(name, def);
    this.scripts = conn.cmd as unknown as DirectoryScripts;
    this.renewIntervalMs = options.renewIntervalMs ?? Math.max(1, Math.floor(options.leaseTtlMs / 3));
  }

  /** Subscribes to the directory channel, loads the view, starts renewing. */
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
    dir.renewTimer = setInterval(() => { void dir.renew(); }, dir.renewIntervalMs);
    dir.renewTimer.unref();
    return dir;
  }

  // ---- MatchDirectory -------------------------------------------------------------------------

  async claim(match: NewMatch, options: ClaimOptions = {}): Promise<Claim> {
    const result = await this.claimScript(toStored({ ...match, matchId: match.matchId ?? '', playerIds: [], epoch: 0 }, ''), options);
    if (result.status === 'capacity' || result.status === 'key_capacity') return { ok: false, reason: result.status };
    if (result.status === 'taken') return { ok: false, reason: 'taken', record: toEntry(result.record) };
    const entry = this.installReply(result.record);
    this.owned.set(match.groupCode, entry);
    return { ok: true, record: entry };
  }

  release(groupCode: string, epoch: number): MatchRecord | undefined {
    const entry = this.byCode.get(groupCode);
    if (!entry || entry.epoch !== epoch) return undefined;
    this.remove(groupCode);
    this.overlay.delete(groupCode);
    if (this.owned.get(groupCode)?.epoch === epoch) this.owned.delete(groupCode);
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

  // ---- MatchOwnership -------------------------------------------------------------------------

  owns(groupCode: string): boolean {
    return this.owned.has(groupCode);
  }

  ownerOf(groupCode: string): string | undefined {
    return this.owners.get(groupCode);
  }

  async orphans(): Promise<string[]> {
    return this.scripts.odsDirOrphans(this.keys.matches, this.keys.lease(''));
  }

  async adopt(groupCode: string, after: number): Promise<MatchRecord | undefined> {
    const seq = ++this.writeSeq;
    const k = this.keys;
    const rec = await this.scripts.odsDirAdopt(k.lease(groupCode), k.match(groupCode), k.matches, k.epoch,
      this.nodeId, this.ttl, after, k.directoryChannel, seq, groupCode);
    if (rec === null) return undefined;
    const entry = this.installReply(JSON.parse(rec) as Stored);
    this.owned.set(groupCode, entry);
    return entry;
  }

  onLost(listener: (groupCode: string, epoch: number) => void): () => void {
    this.lostListeners.add(listener);
    return () => this.lostListeners.delete(listener);
  }

  onReasserted(listener: (record: MatchRecord) => void): () => void {
    this.reassertedListeners.add(listener);
    return () => this.reassertedListeners.delete(listener);
  }

  // ---- Lifecycle --------------------------------------------------------------------------------

  /**
   * Until this view shows every change made in Redis before the call (a marker published now has
   * come back, and no reload is under way).
   */
  async caughtUp(): Promise<void> {
    while (this.reloading) await this.reloading;
    const id = randomUUID();
    const seen = this.waitMark(id);
    if (!(await this.conn.publish(this.keys.directoryChannel, JSON.stringify({ t: 'mark', id })))) {
      this.markWaiters.delete(id);
      throw new Error('redis unreachable');
    }
    await seen;
    while (this.reloading) await this.reloading;
  }

  /**
   * One renewal of every lease this node holds (the timer calls it every third of the TTL; at
   * once after an outage). Concurrent calls share the one under way.
   */
  renew(): Promise<void> {
    if (!this.renewing) this.renewing = this.renewOnce().finally(() => { this.renewing = null; });
    return this.renewing;
  }

  /**
   * Graceful shutdown (after the matches' last snapshots are stored): this node's leases are
   * deleted where they are still its own, so another node adopts the matches at once instead of
   * after the TTL. Renewal stops. Best effort: a failure leaves the leases to run out.
   */
  async relinquishAll(): Promise<number> {
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = null;
    const held = [...this.owned.values()];
    this.owned.clear();
    let n = 0;
    await Promise.all(held.map(async (e) => {
      const deleted = await this.conn.cmd.eval(RELINQUISH_LUA, 1, this.keys.lease(e.groupCode), `${this.nodeId} ${e.epoch}`).catch(() => 0);
      if (deleted === 1) n++;
    }));
    return n;
  }

  /** Stops renewing and listening (the leases run out); the connection is the caller's. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.renewTimer) clearInterval(this.renewTimer);
    this.renewTimer = null;
    this.unsubscribe?.();
    this.offStatus?.();
    this.loading = null;
  }

  // ---- Claims and writes ----------------------------------------------------------------------

  /** The claim script: its status and the record (the claimed one, or the live one when taken). */
  private async claimScript(stored: Stored, options: ClaimOptions): Promise<{ status: 'ok'; record: Stored } | { status: 'taken'; record: Stored } | { status: 'capacity' } | { status: 'key_capacity' }> {
    const seq = ++this.writeSeq;
    const k = this.keys;
    const code = stored.base.groupCode;
    const limits = options.limits;
    const [status, rec] = await this.scripts.odsDirClaim(
      k.lease(code), k.match(code), k.matches, k.perKey(stored.base.keyId), k.epoch,
      this.nodeId, this.ttl, options.after ?? 0, limits ? limits.maxLive : '', limits ? limits.maxPerKey : '',
      storedJson(stored), k.directoryChannel, seq, code);
    if (status === 'capacity' || status === 'key_capacity') return { status };
    if (status === 'ok' || status === 'taken') return { status, record: JSON.parse(rec!) as Stored };
    throw new Error(`unexpected claim reply ${status}`);
  }

  /** A record a script of this node just wrote: into the view unless the view has it already (a message may have brought later changes). */
  private installReply(stored: Stored): Entry {
    const code = stored.base.groupCode;
    const cur = this.byCode.get(code);
    if (cur && cur.epoch >= stored.epoch) return cur;
    const entry = toEntry(stored);
    this.put(entry, stored.owner);
    return entry;
  }

  private localWrite(groupCode: string, field: Field, value: FieldValue): boolean {
    const cur = this.byCode.get(groupCode);
    if (!cur) return false;
    const next: Entry = { ...cur };
    if (field === 'playerIds') next.playerIds = new Set(value as readonly string[]);
    else next[field] = value as string;
    this.put(next, this.owners.get(groupCode) ?? '');
    let ov = this.overlay.get(groupCode);
    if (!ov || ov.epoch !== cur.epoch) this.overlay.set(groupCode, (ov = { epoch: cur.epoch, fields: new Map() }));
    const seq = ++this.writeSeq;
    ov.fields.set(field, { value, seq });
    this.sendUpdate(groupCode, cur.epoch, field, value, seq);
    return true;
  }

  private sendUpdate(code: string, epoch: number, field: Field, value: FieldValue, seq: number): void {
    const arg = field === 'playerIds' ? JSON.stringify(value) : (value as string);
    this.scripts.odsDirUpdate(this.keys.match(code), this.nodeId, epoch, field, arg, this.keys.directoryChannel, seq).then(
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

  private sendRelease(code: string, epoch: number, keyId: string): void {
    const seq = ++this.writeSeq;
    this.releasing.set(code, { epoch, seq });
    this.failedReleases.delete(code);
    const k = this.keys;
    this.scripts.odsDirRelease(k.lease(code), k.match(code), k.matches, k.perKey(keyId), this.nodeId, epoch, k.directoryChannel, seq, code).then(
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

  // ---- Ownership: renewal -----------------------------------------------------------------------

  private async renewOnce(): Promise<void> {
    if (this.closed) return;
    this.pruneTombstones();
    const held = [...this.owned.values()].map((e) => [e.groupCode, e.epoch] as const);
    for (let i = 0; i < held.length; i += RENEW_BATCH) {
      const batch = held.slice(i, i + RENEW_BATCH);
      let results: number[];
      try {
        results = await this.scripts.odsDirRenew(this.nodeId, this.ttl, this.keys.lease(''), this.keys.match(''), ...batch.flat());
      } catch (err) {
        // Redis unreachable: the node keeps its matches (the lease TTL runs in Redis, which is down too).
        this.warnLimited('renew', { error: (err as Error).message, leases: held.length }, 'lease renewal failed (retrying)');
        return;
      }
      for (let j = 0; j < batch.length; j++) {
        const [code, epoch] = batch[j];
        const current = this.owned.get(code);
        if (!current || current.epoch !== epoch) continue; // released or re-claimed meanwhile
        if (results[j] === 0) {
          this.owned.delete(code);
          this.log.warn({ groupCode: code, epoch }, 'match lease lost to another node');
          this.emit(this.lostListeners, code, epoch);
        } else if (results[j] === 3) {
          await this.reassert(current);
        }
      }
    }
  }

  /** Redis lost the record and the lease: claimed again, without limits, with an epoch above the old one. */
  private async reassert(old: Entry): Promise<void> {
    const code = old.groupCode;
    let result: Awaited<ReturnType<RedisMatchDirectory['claimScript']>>;
    try {
      result = await this.claimScript(toStored(old, this.nodeId), { after: old.epoch });
    } catch (err) {
      this.warnLimited('renew', { groupCode: code, error: (err as Error).message }, 'match re-assertion failed (retrying)');
      return;
    }
    const stillOwned = this.owned.get(code)?.epoch === old.epoch;
    if (result.status !== 'ok') {
      // Another node created the code meanwhile: it is theirs.
      if (!stillOwned) return;
      this.owned.delete(code);
      this.log.warn({ groupCode: code, epoch: old.epoch }, 'match lost: re-created by another node after redis lost it');
      this.emit(this.lostListeners, code, old.epoch);
      return;
    }
    if (!stillOwned) {
      // Released here while the claim was under way: release the new claim too.
      this.sendRelease(code, result.record.epoch, old.keyId);
      return;
    }
    // The view's record (if any) has the old epoch: the new claim replaces it.
    const entry = this.installReply(result.record);
    this.owned.set(code, entry);
    this.log.info({ groupCode: code, epoch: entry.epoch, oldEpoch: old.epoch }, 'match re-asserted after redis lost it');
    this.emit(this.reassertedListeners, entry);
  }

  private async recover(): Promise<void> {
    if (this.closed) return;
    try {
      this.retryFailedWrites();
      await this.renewing?.catch(() => undefined);
      await this.renew();
      await this.reload();
    } catch (err) {
      this.log.warn({ error: (err as Error).message }, 'directory recovery after redis outage failed');
    }
  }

  // ---- The view ---------------------------------------------------------------------------------

  private onMessage(raw: Buffer): void {
    if (this.closed) return;
    let msg: Message;
    try {
      msg = JSON.parse(raw.toString()) as Message;
    } catch {
      this.log.warn('unreadable directory message');
      return;
    }
    if (msg.t === 'mark') {
      const loading = this.loading;
      if (loading && msg.id === loading.id) {
        loading.markAt = loading.buffer.length;
        loading.marked();
      }
      const waiter = this.markWaiters.get(msg.id);
      if (waiter) { this.markWaiters.delete(msg.id); waiter(); }
      return;
    }
    if (this.loading) this.loading.buffer.push(msg);
    else this.apply(msg);
  }

  private apply(msg: Exclude<Message, { t: 'mark' }>): void {
    if (msg.w === this.nodeId && msg.s > this.ownSeen) this.ownSeen = msg.s;
    if (msg.t === 'set') return this.accept(msg.r);
    const cur = this.byCode.get(msg.c);
    if (cur && cur.epoch <= msg.e) this.remove(msg.c);
    const ov = this.overlay.get(msg.c);
    if (ov && ov.epoch <= msg.e) this.overlay.delete(msg.c);
    const rel = this.releasing.get(msg.c);
    if (rel && rel.seq <= this.ownSeen) this.releasing.delete(msg.c);
  }

  /** A record as Redis had it, with this node's pending writes on top. */
  private accept(stored: Stored): void {
    const code = stored.base.groupCode;
    const rel = this.releasing.get(code);
    if (rel) {
      if (rel.seq <= this.ownSeen) this.releasing.delete(code);
      else if (stored.epoch <= rel.epoch) return;
    }
    const cur = this.byCode.get(code);
    if (cur && cur.epoch > stored.epoch) return; // an older claim's message, after this node installed the newer one
    const entry = toEntry(stored);
    const ov = this.overlay.get(code);
    if (ov && ov.epoch < stored.epoch) {
      this.overlay.delete(code);
    } else if (ov && ov.epoch === stored.epoch) {
      for (const [field, pending] of ov.fields) {
        if (pending.seq <= this.ownSeen) ov.fields.delete(field);
        else if (field === 'playerIds') entry.playerIds = new Set(pending.value as readonly string[]);
        else entry[field] = pending.value as string;
      }
      if (ov.fields.size === 0) this.overlay.delete(code);
    }
    this.put(entry, stored.owner);
  }

  /** Loads every record (serialised: a reload asked for during one runs after it). */
  private reload(failHard = false): Promise<void> {
    if (this.reloading) {
      this.reloadAgain = true;
      return this.reloading;
    }
    const run = async () => {
      do {
        this.reloadAgain = false;
        await this.loadOnce(failHard);
      } while (this.reloadAgain && !this.closed);
    };
    this.reloading = run().finally(() => { this.reloading = null; });
    return this.reloading;
  }

  private async loadOnce(failHard: boolean): Promise<void> {
    if (this.closed) return;
    let marked!: () => void;
    const markSeen = new Promise<void>((resolve) => { marked = resolve; });
    const loading: Loading = { id: randomUUID(), buffer: [], markAt: -1, marked };
    this.loading = loading;
    let timer: NodeJS.Timeout | undefined;
    // Every write of this node sent before the load ran before it (one connection, in order): the
    // records show it, even when its message was lost (the subscriber was down).
    const sentBefore = this.writeSeq;
    try {
      const records = await this.scripts.odsDirLoad(this.keys.matches, this.keys.match(''), this.keys.directoryChannel, loading.id);
      await Promise.race([markSeen, new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('the load marker did not come back on the directory channel')), MARK_TIMEOUT_MS);
      })]);
      if (this.loading !== loading) return;
      this.loading = null;
      // The messages before the marker are in `records`: only how far this node's own writes came counts.
      this.ownSeen = Math.max(this.ownSeen, sentBefore);
      for (const msg of loading.buffer.slice(0, loading.markAt)) {
        if (msg.t !== 'mark' && msg.w === this.nodeId && msg.s > this.ownSeen) this.ownSeen = msg.s;
      }
      this.clearView();
      this.owners.clear();
      for (const rec of records) this.accept(JSON.parse(rec) as Stored);
      for (const msg of loading.buffer.slice(loading.markAt)) if (msg.t !== 'mark') this.apply(msg);
      this.log.debug({ matches: this.byCode.size }, 'directory view loaded');
    } catch (err) {
      if (this.loading === loading) {
        // Nothing lost: the view carries on from the messages, and loads again when Redis is back.
        this.loading = null;
        for (const msg of loading.buffer) if (msg.t !== 'mark') this.apply(msg);
      }
      if (failHard) throw err;
      this.warnLimited('load', { error: (err as Error).message }, 'directory view load failed');
    } finally {
      clearTimeout(timer);
    }
  }

  private put(entry: Entry, owner: string): void {
    this.index(entry);
    this.owners.set(entry.groupCode, owner);
    if (this.owned.get(entry.groupCode)?.epoch === entry.epoch) this.owned.set(entry.groupCode, entry);
  }

  private remove(code: string): void {
    if (this.unindex(code)) this.owners.delete(code);
  }

  private pruneTombstones(): void {
    for (const [code, rel] of this.releasing) if (rel.seq <= this.ownSeen) this.releasing.delete(code);
  }

  private waitMark(id: string): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.markWaiters.delete(id);
        reject(new Error('the marker did not come back on the directory channel'));
      }, MARK_TIMEOUT_MS);
      this.markWaiters.set(id, () => { clearTimeout(timer); resolve(); });
    });
  }

  private emit<A extends unknown[]>(listeners: Set<(...args: A) => void>, ...args: A): void {
    for (const listener of listeners) {
      try {
        listener(...args);
      } catch (err) {
        this.log.error({ error: (err as Error).message }, 'directory listener failed');
      }
    }
  }

  private warnLimited(kind: string, fields: Record<string, unknown>, message: string): void {
    const now = Date.now();
    if (now - (this.lastLog.get(kind) ?? 0) < LOG_EVERY_MS) return;
    this.lastLog.set(kind, now);
    this.log.warn(fields, message);
  }
}
