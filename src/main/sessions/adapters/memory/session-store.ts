// SessionStore in memory (sessions/session-store.ts): sessions by id; with STATE_DIR, also those read
// back at start, by the digest of their id, until a client takes them over (state-dir/session-store.ts).
import { sha256Hex } from '../../../base/hashing.js';
import { MAX_SESSION_ID_LENGTH } from '../../../base/limits.js';
import type { PersistedSession } from '../../../state-dir/files.js';
import type { NewSession, SessionEnd, SessionRecord, SessionStore, TakenOver } from '../../session-store.js';


type Entry = { -readonly [K in keyof SessionRecord]: SessionRecord[K] };

/**
 * Sessions kept, by what ends them together: observers by group code, auxiliaries by match id. A
 * match's removal ends its sessions (`end`), and an auxiliary logon checks its match's: without the
 * index each was a walk over every session, so ending every match (a shutdown, N matches and S
 * sessions) was N × S (docs/benchmarks.md, issue 28 step 8).
 */
class SessionIndex {
  private readonly sets = new Map<string, Set<Entry>>();

  private keyOf(s: Entry): string {
    return s.role === 'observer' ? 'g\u0000' + s.groupCode : 'm\u0000' + s.matchId;
  }

  add(s: Entry): void {
    const key = this.keyOf(s);
    const set = this.sets.get(key);
    if (set) set.add(s);
    else this.sets.set(key, new Set([s]));
  }

  remove(s: Entry): void {
    const key = this.keyOf(s);
    const set = this.sets.get(key);
    if (!set) return;
    set.delete(s);
    if (set.size === 0) this.sets.delete(key);
  }

  observersOf(groupCode: string): Set<Entry> | undefined {
    return this.sets.get('g\u0000' + groupCode);
  }

  auxiliariesOf(matchId: string): Set<Entry> | undefined {
    return this.sets.get('m\u0000' + matchId);
  }
}

export class MemorySessionStore implements SessionStore {
  private readonly byId = new Map<string, Entry>();
  /** Sessions read from STATE_DIR, by the digest of their id, until a client takes them over. */
  private readonly restored = new Map<string, Entry>();
  /** The digest a restored session is kept under (its id is unknown until it is taken over). */
  private readonly digests = new WeakMap<Entry, string>();
  /** Every session of byId and restored, by group code (observers) and match id (auxiliaries). */
  private readonly index = new SessionIndex();
  /** Raised by every change (the STATE_DIR adapter writes the table when it moved). */
  version = 0;

  constructor(protected readonly windowMs: number) {}

  put(session: NewSession): void {
    const before = this.byId.get(session.id);
    if (before) this.index.remove(before);
    const entry: Entry = { ...session, disconnectedAt: null };
    this.byId.set(session.id, entry);
    this.index.add(entry);
    this.version++;
  }

  /** The check and the write are one synchronous step: atomic in this process. */
  putAuxiliary(session: NewSession): boolean {
    for (const s of this.index.auxiliariesOf(session.matchId) ?? []) {
      if (s.playerId === session.playerId && s.socketId !== null) return false; // a restored session has no socket
    }
    this.put(session);
    return true;
  }

  /** Drops a session for good, from wherever it is kept. */
  private drop(s: Entry): void {
    if (this.byId.get(s.id) === s) this.byId.delete(s.id);
    const digest = this.digests.get(s);
    if (digest !== undefined && this.restored.get(digest) === s) this.restored.delete(digest);
    this.index.remove(s);
  }

  takeOver(presentedId: unknown, newId: string, socketId: string, now: number): TakenOver | undefined {
    if (typeof presentedId !== 'string' || presentedId.length === 0 || presentedId.length > MAX_SESSION_ID_LENGTH) return undefined;
    let entry = this.byId.get(presentedId);
    if (!entry && this.restored.size > 0) {
      const digest = sha256Hex(presentedId);
      entry = this.restored.get(digest);
      if (entry) {
        if (now - (entry.disconnectedAt ?? now) > this.windowMs) {
          this.drop(entry);
          return undefined;
        }
        this.restored.delete(digest);
        this.digests.delete(entry);
        entry.id = presentedId;
        this.byId.set(presentedId, entry);
      }
    }
    if (!entry) return undefined;
    if (entry.disconnectedAt !== null && now - entry.disconnectedAt > this.windowMs) {
      this.drop(entry);
      return undefined;
    }
    const previousSocketId = entry.socketId;
    const disconnectedAt = entry.disconnectedAt;
    this.byId.delete(entry.id);
    entry.id = newId;
    entry.socketId = socketId;
    entry.disconnectedAt = null;
    this.byId.set(newId, entry);
    this.version++;
    return { session: entry, previousSocketId, disconnectedAt };
  }

  detach(id: string, socketId: string, now: number): boolean {
    const entry = this.byId.get(id);
    if (!entry || entry.socketId !== socketId) return false; // another socket has taken it over, or it ended
    entry.socketId = null;
    entry.disconnectedAt = now;
    this.version++;
    return true;
  }

  async end(which: SessionEnd): Promise<SessionRecord[]> {
    return this.endNow(which);
  }

  /** `end` in one synchronous step. */
  endNow(which: SessionEnd): SessionRecord[] {
    const ended: Entry[] = [];
    if (which.observersOf !== undefined) ended.push(...(this.index.observersOf(which.observersOf) ?? []));
    if (which.auxiliariesOf !== undefined) ended.push(...(this.index.auxiliariesOf(which.auxiliariesOf) ?? []));
    for (const s of ended) this.drop(s);
    this.version++;
    return ended;
  }

  sweep(now: number): void {
    for (const s of this.byId.values()) {
      if (s.disconnectedAt !== null && now - s.disconnectedAt > this.windowMs) this.drop(s);
    }
    for (const s of this.restored.values()) {
      if (now - (s.disconnectedAt ?? now) > this.windowMs) this.drop(s);
    }
  }

  size(): number {
    return this.byId.size + this.restored.size;
  }

  /** Every session kept, as stored (tests age them to simulate the window). */
  all(): SessionRecord[] {
    return [...this.byId.values(), ...this.restored.values()];
  }

  async flush(_now: number): Promise<void> {}

  close(): void {}

  /**
   * The table for STATE_DIR: ids as digests; sessions still held count as gone at `now` (the
   * service is going away, their clients will reconnect).
   */
  persisted(now: number): PersistedSession[] {
    const out: PersistedSession[] = [];
    const one = (pidHash: string, s: Entry) => out.push({
      pidHash, role: s.role, groupCode: s.groupCode, obsName: s.obsName, matchId: s.matchId, playerId: s.playerId,
      ...(s.seat === 'standby' ? { seat: s.seat } : {}), disconnectedAt: s.disconnectedAt ?? now,
    });
    for (const s of this.byId.values()) one(sha256Hex(s.id), s);
    for (const [digest, s] of this.restored) one(digest, s);
    return out;
  }

  /** Sessions read from STATE_DIR; those past the window are skipped. Returns how many were kept. */
  restore(list: PersistedSession[], now: number): number {
    let n = 0;
    for (const p of list) {
      if (typeof p.pidHash !== 'string' || (p.role !== 'observer' && p.role !== 'auxiliary')) continue;
      if (now - p.disconnectedAt > this.windowMs) continue;
      const before = this.restored.get(p.pidHash);
      if (before) this.drop(before);
      const entry: Entry = {
        id: '', role: p.role, groupCode: p.groupCode, obsName: p.obsName, matchId: p.matchId, playerId: p.playerId,
        ...(p.seat === 'standby' ? { seat: p.seat } : {}), socketId: null, disconnectedAt: p.disconnectedAt,
      };
      this.restored.set(p.pidHash, entry);
      this.digests.set(entry, p.pidHash);
      this.index.add(entry);
      n++;
    }
    this.version++;
    return n;
  }
}
