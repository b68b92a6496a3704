// SessionStore on Redis (sessions/session-store.ts): the resumable-session table shared by the nodes,
// so that a client reconnecting to another node resumes its session there.
//
// Layout (keys.ts): a session's JSON under keys.session(id); the ids of a group code's observer
// sessions (sessionsOfGroup) and of a match id's auxiliary sessions (sessionsOfMatch), so that
// `end` finds them across nodes; keys.auxHolder(matchId, playerId): the id of the player's held
// auxiliary session (SET NX: of two auxiliary logons, one is kept).
//
// Expiry: a detached session expires RECOVERY_WINDOW_MS after its detach (PX; the window check
// itself uses the `now` the caller passes, as in memory). A held session has a safety expiry of
// `heldTtlMs` (default: the window) that the holding node renews every third of it for the sessions
// it holds: a node that dies leaves its sessions resumable for at least two thirds of a window (its
// clients reconnect elsewhere within seconds), then they go, instead of staying "held" for ever
// (which would refuse the player's next auxiliary logon). The index sets get an expiry at least as
// long as their members' on every write, and `end` deletes them.
//
// Writes that change a session are compare-and-set scripts on its whole JSON text (every node
// writes it with `encode`), so no script decodes JSON: `takeOver` reads the session, then swaps it
// for its re-keyed copy only if it is still what was read (of two sockets presenting one id,
// exactly one swap succeeds; a session that changed in between is read again).
//
// The port's synchronous methods (put, detach, sweep, size) work on this node's view: the sessions
// it put or took over, with the text it last wrote; their Redis writes are fired in order on the
// command connection (a later lookup on this node sees them) and failures are logged. `size()` is
// this node's count (the sessions its sockets hold or held), not the cluster's. A session taken
// over by another node stays in this node's view until the renewal finds it changed (or its socket
// detaches, which then returns true here while the Redis write, finding another holder, changes
// nothing).
//
// Tombstones: a key taken over or ended keeps a marker text for `heldTtlMs` (see TAKEN_OVER).
// The scripts: lua/sessions.ts.
import type { Logger } from '../../../base/log.js';
import { MAX_SESSION_ID_LENGTH } from '../../../base/limits.js';
import type { NewSession, SessionEnd, SessionRecord, SessionStore, TakenOver } from '../../session-store.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { SESSIONS_SCRIPTS } from './lua/sessions.js';

export interface RedisSessionStoreOptions {
  /** RECOVERY_WINDOW_MS. */
  windowMs: number;
  log: Logger;
  /** Safety expiry of held sessions, renewed by their node every third of it (default: windowMs). */
  heldTtlMs?: number;
}

type Entry = { -readonly [K in keyof SessionRecord]: SessionRecord[K] };
interface Local { record: Entry; raw: string }

/** Every node writes a session's text with this function (fixed field order: scripts compare texts). */
const encode = (s: SessionRecord): string => JSON.stringify({
  id: s.id, role: s.role, groupCode: s.groupCode, obsName: s.obsName, matchId: s.matchId, playerId: s.playerId,
  ...(s.seat === 'standby' ? { seat: s.seat } : {}), socketId: s.socketId, disconnectedAt: s.disconnectedAt,
});

function decode(raw: string): Entry | undefined {
  try {
    const s = JSON.parse(raw) as Entry;
    if (typeof s?.id === 'string' && (s.role === 'observer' || s.role === 'auxiliary') && typeof s.groupCode === 'string'
      && typeof s.matchId === 'string' && typeof s.playerId === 'string' && typeof s.obsName === 'string'
      && (s.socketId === null || typeof s.socketId === 'string') && (s.disconnectedAt === null || typeof s.disconnectedAt === 'number')) return s;
  } catch { /* undefined */ }
  return undefined;
}

/**
 * What a session's key holds for a while after it was taken over (re-keyed) or ended: not a
 * session (takeOver finds nothing), and not the text its holder wrote (the holder's next write
 * finds it changed and drops it from its view; a key that is simply gone, lost with a Redis
 * restart, leaves the holder's view alone: its socket still holds the session).
 */
const TAKEN_OVER = '{"gone":"taken over"}';
const ENDED = '{"gone":"ended"}';

/** Reads before a takeover gives up on a session that keeps changing under it. */
const TAKE_OVER_ATTEMPTS = 5;
/** Rounds of `end` (sessions added or changed while it runs are picked up by the next round). */
const END_ROUNDS = 5;

export class RedisSessionStore implements SessionStore {
  private readonly view = new Map<string, Local>();
  private readonly writes = new Set<Promise<unknown>>();
  private readonly log: Logger;
  private readonly windowMs: number;
  private readonly heldTtlMs: number;
  private readonly renewTimer: NodeJS.Timeout;

  /** The command connection with this store's scripts (lua/sessions.ts). */
  private get lua() { return this.conn.scripts(SESSIONS_SCRIPTS); }

  constructor(private readonly conn: RedisConnection, options: RedisSessionStoreOptions) {
    this.log = options.log.child({ module: 'sessions' });
    this.windowMs = options.windowMs;
    this.heldTtlMs = Math.max(options.heldTtlMs ?? options.windowMs, 1000);
    this.renewTimer = setInterval(() => this.renew(), Math.max(100, Math.floor(this.heldTtlMs / 3)));
    this.renewTimer.unref();
  }

  put(session: NewSession): void {
    const local = this.remember({ ...session, disconnectedAt: null });
    const [index, holder] = this.indexKeys(local.record);
    this.fire('put', this.lua.odsSessionPut(this.conn.keys.session(session.id), index, holder, session.id, local.raw, this.heldTtlMs, '0'));
  }

  /** One script: the holder key is claimed (SET NX) and the session written, or nothing happens. */
  async putAuxiliary(session: NewSession): Promise<boolean> {
    const record: Entry = { ...session, disconnectedAt: null };
    const raw = encode(record);
    const [index, holder] = this.indexKeys(record);
    const kept = await this.track(this.lua.odsSessionPut(this.conn.keys.session(session.id), index, holder, session.id, raw, this.heldTtlMs, '1'));
    if (kept !== 1) return false;
    this.view.set(session.id, { record, raw });
    return true;
  }

  async takeOver(presentedId: unknown, newId: string, socketId: string, now: number): Promise<TakenOver | undefined> {
    if (typeof presentedId !== 'string' || presentedId.length === 0 || presentedId.length > MAX_SESSION_ID_LENGTH) return undefined;
    const k = this.conn.keys;
    for (let attempt = 0; attempt < TAKE_OVER_ATTEMPTS; attempt++) {
      const read = await this.conn.cmd.get(k.session(presentedId));
      if (read === TAKEN_OVER && newId !== presentedId) return this.alreadyMine(newId, socketId);
      const old = read === null ? undefined : decode(read);
      if (!old || old.id !== presentedId) return undefined;
      if (old.disconnectedAt !== null && now - old.disconnectedAt > this.windowMs) return undefined; // its PX removes it
      const record: Entry = { ...old, id: newId, socketId, disconnectedAt: null };
      const raw = encode(record);
      const [index, holder] = this.indexKeys(record);
      const swapped = await this.track(this.lua.odsSessionTakeOver(k.session(presentedId), k.session(newId), index, holder,
        presentedId, read!, newId, raw, this.heldTtlMs, record.role === 'auxiliary' ? '1' : '0', TAKEN_OVER));
      if (swapped === 0) return undefined; // another socket took it over first, or it ended
      if (swapped === -1) continue; // changed since it was read (detached, taken over and back): read again
      this.view.delete(presentedId);
      this.view.set(newId, { record, raw });
      return { session: { ...record }, previousSocketId: old.socketId, disconnectedAt: old.disconnectedAt };
    }
    this.log.warn('session takeover gave up: the session kept changing');
    return undefined;
  }

  /**
   * A takeover that is asked again (ingest/resume.ts retries one the store did not answer) may find
   * that its own earlier swap went through although its reply was lost (a timeout, a failover):
   * the session is then under `newId`, held by this socket.
   */
  private async alreadyMine(newId: string, socketId: string): Promise<TakenOver | undefined> {
    const raw = await this.conn.cmd.get(this.conn.keys.session(newId));
    const record = raw === null ? undefined : decode(raw);
    if (!record || record.id !== newId || record.socketId !== socketId) return undefined;
    this.view.set(newId, { record, raw: raw! });
    return { session: { ...record }, previousSocketId: null, disconnectedAt: null };
  }

  detach(id: string, socketId: string, now: number): boolean {
    const local = this.view.get(id);
    if (!local || local.record.socketId !== socketId) return false;
    const expected = local.raw;
    local.record.socketId = null;
    local.record.disconnectedAt = now;
    local.raw = encode(local.record);
    this.write('detach', local, expected, local.raw, this.windowMs, false, true);
    return true;
  }

  async end(which: SessionEnd): Promise<SessionRecord[]> {
    const k = this.conn.keys;
    const placeholder = k.sessionsOfGroup(''); // never a real index: group codes are not empty
    const groupSet = which.observersOf !== undefined ? k.sessionsOfGroup(which.observersOf) : placeholder;
    const matchSet = which.auxiliariesOf !== undefined ? k.sessionsOfMatch(which.auxiliariesOf) : placeholder;
    const hit = (s: SessionRecord) => (s.role === 'observer' && which.observersOf !== undefined && s.groupCode === which.observersOf)
      || (s.role === 'auxiliary' && which.auxiliariesOf !== undefined && s.matchId === which.auxiliariesOf);
    const ended = new Map<string, SessionRecord>();
    for (let round = 0; round < END_ROUNDS; round++) {
      const ids = [
        ...(which.observersOf !== undefined ? await this.conn.cmd.smembers(groupSet) : []),
        ...(which.auxiliariesOf !== undefined ? await this.conn.cmd.smembers(matchSet) : []),
      ];
      if (ids.length === 0) break;
      const texts = await this.conn.cmd.mget(...ids.map((id) => k.session(id)));
      const found = new Map<string, { raw: string; record: Entry | undefined }>();
      ids.forEach((id, i) => { found.set(id, { raw: texts[i] ?? '', record: texts[i] ? decode(texts[i]!) : undefined }); });
      const list = [...found.keys()];
      const holders = list.map((id) => {
        const r = found.get(id)!.record;
        return r && r.role === 'auxiliary' ? k.auxHolder(r.matchId, r.playerId) : k.session(id); // a string key whose text is never an id
      });
      // A text that is not a session of this group/match (it cannot be: ids are unique) is left alone.
      const raws = list.map((id) => { const f = found.get(id)!; return f.record && hit(f.record) ? f.raw : '\u0000'; });
      const gone = await this.track(this.lua.odsSessionEnd(2 + 2 * list.length, groupSet, matchSet,
        ...list.map((id) => k.session(id)), ...holders, list.length, ...list, ...raws, this.heldTtlMs, ENDED));
      for (const id of gone) ended.set(id, found.get(id)!.record!);
      // Sessions that changed since they were read (detached, taken over) are read again.
      const changed = list.filter((id) => { const f = found.get(id)!; return f.raw !== '' && f.record && hit(f.record) && !ended.has(id); });
      if (changed.length === 0) break;
    }
    // This node's own sessions of the group/match that Redis no longer had (lost with a restart)
    // end too: their sockets must close.
    for (const [id, local] of this.view) {
      if (!hit(local.record)) continue;
      this.view.delete(id);
      if (!ended.has(id)) ended.set(id, { ...local.record });
    }
    for (const id of ended.keys()) this.view.delete(id);
    return [...ended.values()];
  }

  sweep(now: number): void {
    for (const [id, local] of this.view) {
      const d = local.record.disconnectedAt;
      if (d === null || now - d <= this.windowMs) continue;
      this.view.delete(id);
      this.write('sweep', local, local.raw, '', 0, false, false);
    }
  }

  /** This node's sessions (held by its sockets, or resumable after they left): not the cluster's. */
  size(): number {
    return this.view.size;
  }

  /** Shutdown: the sessions this node's sockets hold become resumable (gone at `now`), elsewhere too; resolves once written. */
  async flush(now: number): Promise<void> {
    for (const local of this.view.values()) {
      if (local.record.socketId === null) continue;
      const expected = local.raw;
      local.record.socketId = null;
      local.record.disconnectedAt = now;
      local.raw = encode(local.record);
      this.write('flush', local, expected, local.raw, this.windowMs, false, true);
    }
    await Promise.allSettled([...this.writes]);
  }

  /** Stops the renewal timer (the connection is the composition root's). */
  close(): void {
    clearInterval(this.renewTimer);
  }

  /** Renews the expiry of the sessions this node's sockets hold; drops from the view those changed elsewhere. */
  private renew(): void {
    for (const local of this.view.values()) {
      if (local.record.socketId !== null) this.write('renew', local, local.raw, local.raw, this.heldTtlMs, true, false);
    }
  }

  private remember(record: Entry): Local {
    const local = { record, raw: encode(record) };
    this.view.set(record.id, local);
    return local;
  }

  /** The index set of a session, and its holder key (auxiliary) or the index again. */
  private indexKeys(s: SessionRecord): [string, string] {
    const k = this.conn.keys;
    if (s.role === 'auxiliary') return [k.sessionsOfMatch(s.matchId), k.auxHolder(s.matchId, s.playerId)];
    const index = k.sessionsOfGroup(s.groupCode);
    return [index, index];
  }

  /** A compare-and-set write of this node's session, fired. */
  private write(op: string, local: Local, expected: string, json: string, ttl: number, renew: boolean, release: boolean): void {
    const s = local.record;
    const [index, holder] = this.indexKeys(s);
    const done = this.lua.odsSessionUpdate(this.conn.keys.session(s.id), index, holder, s.id, expected, json, ttl,
      renew ? '1' : '0', release ? '1' : '0', s.role === 'auxiliary' ? '1' : '0');
    // Taken over by another socket: it leaves this node's view. Gone (ended elsewhere, or lost with
    // a Redis restart): it stays, as this node's socket still holds it (the session is not re-created:
    // an ended session must not come back).
    this.fire(op, done.then((r) => {
      if (r === -1 && this.view.get(s.id) === local) this.view.delete(s.id);
      return r;
    }));
  }

  private fire(op: string, write: Promise<unknown>): void {
    this.track(write).catch((err: Error) => this.log.warn({ op, error: err.message }, 'session write to Redis failed'));
  }

  private track<T>(write: Promise<T>): Promise<T> {
    this.writes.add(write);
    const done = () => { this.writes.delete(write); };
    write.then(done, done);
    return write;
  }
}
