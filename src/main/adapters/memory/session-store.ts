// SessionStore in memory (ports/session-store.ts): sessions by id; with STATE_DIR, also those read
// back at start, by the digest of their id, until a client takes them over (state-dir/session-store.ts).
import { sha256Hex } from '../../base/hashing.js';
import { MAX_SESSION_ID_LENGTH } from '../../base/limits.js';
import type { NewSession, SessionEnd, SessionRecord, SessionStore, TakenOver } from '../../ports/session-store.js';

/** What STATE_DIR keeps of a session: its id as a digest only. */
export interface PersistedSession {
  /** sha-256 of the socket.io private session id, hex. */
  pidHash: string;
  role: 'observer' | 'auxiliary';
  groupCode: string;
  obsName: string;
  matchId: string;
  playerId: string;
  /** The standby's seat (ports/session-store.ts); absent for the group's. */
  seat?: 'standby';
  /** When its socket went away (the shutdown time for sockets open at shutdown). */
  disconnectedAt: number;
}

type Entry = { -readonly [K in keyof SessionRecord]: SessionRecord[K] };

export class MemorySessionStore implements SessionStore {
  private readonly byId = new Map<string, Entry>();
  /** Sessions read from STATE_DIR, by the digest of their id, until a client takes them over. */
  private readonly restored = new Map<string, Entry>();
  /** Raised by every change (the STATE_DIR adapter writes the table when it moved). */
  version = 0;

  constructor(protected readonly windowMs: number) {}

  put(session: NewSession): void {
    this.byId.set(session.id, { ...session, disconnectedAt: null });
    this.version++;
  }

  /** The check and the write are one synchronous step: atomic in this process. */
  putAuxiliary(session: NewSession): boolean {
    for (const s of this.byId.values()) {
      if (s.role === 'auxiliary' && s.matchId === session.matchId && s.playerId === session.playerId && s.socketId !== null) return false;
    }
    this.put(session);
    return true;
  }

  takeOver(presentedId: unknown, newId: string, socketId: string, now: number): TakenOver | undefined {
    if (typeof presentedId !== 'string' || presentedId.length === 0 || presentedId.length > MAX_SESSION_ID_LENGTH) return undefined;
    let entry = this.byId.get(presentedId);
    if (!entry && this.restored.size > 0) {
      const digest = sha256Hex(presentedId);
      entry = this.restored.get(digest);
      if (entry) {
        this.restored.delete(digest);
        if (now - (entry.disconnectedAt ?? now) > this.windowMs) return undefined;
        entry.id = presentedId;
        this.byId.set(presentedId, entry);
      }
    }
    if (!entry) return undefined;
    if (entry.disconnectedAt !== null && now - entry.disconnectedAt > this.windowMs) {
      this.byId.delete(presentedId);
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
    const hit = (s: Entry) => (s.role === 'observer' && which.observersOf !== undefined && s.groupCode === which.observersOf)
      || (s.role === 'auxiliary' && which.auxiliariesOf !== undefined && s.matchId === which.auxiliariesOf);
    const ended: SessionRecord[] = [];
    for (const [id, s] of this.byId) if (hit(s)) { this.byId.delete(id); ended.push(s); }
    for (const [digest, s] of this.restored) if (hit(s)) { this.restored.delete(digest); ended.push(s); }
    this.version++;
    return ended;
  }

  sweep(now: number): void {
    for (const [id, s] of this.byId) {
      if (s.disconnectedAt !== null && now - s.disconnectedAt > this.windowMs) this.byId.delete(id);
    }
    for (const [digest, s] of this.restored) {
      if (now - (s.disconnectedAt ?? now) > this.windowMs) this.restored.delete(digest);
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
      this.restored.set(p.pidHash, {
        id: '', role: p.role, groupCode: p.groupCode, obsName: p.obsName, matchId: p.matchId, playerId: p.playerId,
        ...(p.seat === 'standby' ? { seat: p.seat } : {}), socketId: null, disconnectedAt: p.disconnectedAt,
      });
      n++;
    }
    this.version++;
    return n;
  }
}
