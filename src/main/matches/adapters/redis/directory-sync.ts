// The Redis directory's view (match-directory.ts): the memory indexes of matches/directory-view.ts,
// kept current by the directory channel's messages, with this node's pending writes on top.
//
// Every change in Redis is made by one Lua script that also PUBLISHes it (the full record, or the
// removal), so the messages are in exactly the order of the changes, for every node. The view is
// loaded at open and after every Redis outage by a script that returns every record and publishes
// a marker: the messages before the marker are in the loaded records, the ones after it are applied
// on top. This node's own updates apply to the view at once (match-directory.ts); until the message
// of that write (or a later write of this node: one connection, executed in order) has come back, an
// older message of the same record cannot undo them in the view (an overlay of pending fields, a
// tombstone of a pending release).
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../../base/log.js';
import { DirectoryView, type DirectoryEntry } from '../../directory-view.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { toEntry, type Message, type Stored } from './directory-records.js';
import { DIRECTORY_SCRIPTS } from './lua/directory.js';

export type Field = 'matchId' | 'playerIds' | 'secretDigest';
export type FieldValue = string | readonly string[];

/**
 * What the directory tells this node's ownership (match-ownership.ts) about the claims it holds:
 * one watcher, attached by the ownership adapter.
 */
export interface ClaimWatcher {
  /** This node claimed (or re-claimed) the code: its lease is this node's. */
  claimed(entry: DirectoryEntry): void;
  /** This node released the claim of that epoch. */
  released(groupCode: string, epoch: number): void;
  /** The view's record of a code changed (the same epoch: the owned record follows it). */
  changed(entry: DirectoryEntry): void;
  /** Redis is reachable again, before the view reloads: the leases are renewed (or re-asserted). */
  recover(): Promise<void>;
}

interface Loading {
  id: string;
  /** Every message since the load began; `markAt`: where its marker came. */
  buffer: Message[];
  markAt: number;
  marked: () => void;
}

/** How long a load waits for its marker to come back on the channel. */
const MARK_TIMEOUT_MS = 10_000;
/** Repeated failures (renewal, writes) are logged once per this interval. */
const LOG_EVERY_MS = 10_000;

export abstract class RedisDirectoryView extends DirectoryView {
  readonly nodeId: string;
  protected readonly keys: RedisConnection['keys'];
  protected readonly log: Logger;
  protected watcher: ClaimWatcher | null = null;

  // Each record's owner node, as the messages say.
  private readonly owners = new Map<string, string>();

  // This node's writes: numbered; `ownSeen` = the highest number whose message came back.
  protected writeSeq = 0;
  private ownSeen = 0;
  /** Fields written here whose message has not come back (seq Infinity: failed, retried on reconnection). */
  protected readonly overlay = new Map<string, { epoch: number; fields: Map<Field, { value: FieldValue; seq: number }> }>();
  /** Releases made here whose message has not come back: older messages of the record are ignored. */
  protected readonly releasing = new Map<string, { epoch: number; seq: number }>();

  private loading: Loading | null = null;
  private reloading: Promise<void> | null = null;
  private reloadAgain = false;
  private readonly markWaiters = new Map<string, () => void>();
  protected closed = false;
  private readonly lastLog = new Map<string, number>();

  /** The command connection with the directory's scripts (lua/directory.ts; the subclass uses them too). */
  protected get lua() { return this.conn.scripts(DIRECTORY_SCRIPTS); }

  protected constructor(protected readonly conn: RedisConnection, log: Logger) {
    super();
    this.nodeId = conn.nodeId;
    this.keys = conn.keys;
    this.log = log.child({ module: 'redis-directory' });
  }

  /** The node that holds the code's claim, as last seen; undefined when none. */
  ownerOf(groupCode: string): string | undefined {
    return this.owners.get(groupCode);
  }

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

  /** Tombstones of releases whose message came back (or were loaded) go: called with every lease renewal. */
  pruneTombstones(): void {
    for (const [code, rel] of this.releasing) if (rel.seq <= this.ownSeen) this.releasing.delete(code);
  }

  protected onMessage(raw: Buffer): void {
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
  protected reload(failHard = false): Promise<void> {
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
      const records = await this.lua.odsDirLoad(this.keys.matches, this.keys.match(''), this.keys.directoryChannel, loading.id);
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

  /** Stops applying messages (a load under way is dropped). */
  protected stopSync(): void {
    this.closed = true;
    this.loading = null;
  }

  protected put(entry: DirectoryEntry, owner: string): void {
    this.index(entry);
    this.owners.set(entry.groupCode, owner);
    this.watcher?.changed(entry);
  }

  protected remove(code: string): void {
    if (this.unindex(code)) this.owners.delete(code);
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

  /** A warning, at most once per LOG_EVERY_MS for its kind (an outage repeats them). */
  protected warnLimited(kind: string, fields: Record<string, unknown>, message: string): void {
    const now = Date.now();
    if (now - (this.lastLog.get(kind) ?? 0) < LOG_EVERY_MS) return;
    this.lastLog.set(kind, now);
    this.log.warn(fields, message);
  }
}
