// The resumable-session table (clients.md 1.5). Built-in connection state recovery fails when the
// stored-packet offset expired or when the client is back before the server saw the drop, and the
// real clients never re-send their logon; so every authenticated socket's session is also kept
// here under the private session id (pid) socket.io issued to it, for RECOVERY_WINDOW_MS after
// its socket disconnected.
//
// With STATE_DIR the table is written to disk (exportPersisted) and read back at start
// (importPersisted): the pids are stored as sha-256 digests only, so a restored entry is found by
// the digest of the pid a reconnecting client presents.
import { sha256Hex } from '../hashing.js';
import { MAX_SESSION_ID_LENGTH } from '../limits.js';
import type { PersistedSession } from '../state/state-dir.js';

export type Role = 'observer' | 'auxiliary';

export interface Session {
  role: Role;
  pid: string;
  /** Observer: the group code the session authenticated with. */
  groupCode: string;
  obsName: string;
  /** Auxiliary: the game's match id and the player's id ('' until learned). */
  matchId: string;
  playerId: string;
  socketId: string | null;
  disconnectedAt: number | null;
}

export class SessionTable {
  private readonly byPid = new Map<string, Session>();
  /** Sessions read from STATE_DIR, by the digest of their pid, until a client takes them over. */
  private readonly restored = new Map<string, Session>();
  /** Raised by every change (the service writes the table to STATE_DIR when it moved). */
  version = 0;

  constructor(private readonly windowMs: number) {}

  get size(): number {
    return this.byPid.size + this.restored.size;
  }

  add(session: Session): void {
    this.byPid.set(session.pid, session);
    this.version++;
  }

  /** A session that a reconnecting socket may take over: still connected, or gone for less than the window. */
  resumable(pid: unknown, now: number): Session | undefined {
    if (typeof pid !== 'string' || pid.length === 0 || pid.length > MAX_SESSION_ID_LENGTH) return undefined;
    let session = this.byPid.get(pid);
    if (!session && this.restored.size > 0) {
      const digest = sha256Hex(pid);
      session = this.restored.get(digest);
      if (session) {
        this.restored.delete(digest);
        if (now - (session.disconnectedAt ?? now) > this.windowMs) return undefined;
        session.pid = pid;
        this.byPid.set(pid, session);
      }
    }
    if (!session) return undefined;
    if (session.disconnectedAt !== null && now - session.disconnectedAt > this.windowMs) {
      this.byPid.delete(pid);
      return undefined;
    }
    return session;
  }

  /** Re-key a session under the pid of the socket that took it over. */
  rekey(session: Session, newPid: string, socketId: string): void {
    this.byPid.delete(session.pid);
    session.pid = newPid;
    session.socketId = socketId;
    session.disconnectedAt = null;
    this.byPid.set(newPid, session);
    this.version++;
  }

  disconnected(session: Session, socketId: string, now: number): void {
    if (session.socketId !== socketId) return; // another socket has taken it over already
    session.socketId = null;
    session.disconnectedAt = now;
    this.version++;
  }

  delete(session: Session): void {
    if (this.byPid.get(session.pid) === session) this.byPid.delete(session.pid);
    for (const [digest, s] of this.restored) if (s === session) this.restored.delete(digest);
    this.version++;
  }

  /** Sessions matching a predicate (used when a match ends: its sessions end too). */
  filter(pred: (s: Session) => boolean): Session[] {
    const out: Session[] = [];
    for (const s of this.byPid.values()) if (pred(s)) out.push(s);
    for (const s of this.restored.values()) if (pred(s)) out.push(s);
    return out;
  }

  sweep(now: number): void {
    for (const [pid, s] of this.byPid) {
      if (s.disconnectedAt !== null && now - s.disconnectedAt > this.windowMs) this.byPid.delete(pid);
    }
    for (const [digest, s] of this.restored) {
      if (now - (s.disconnectedAt ?? now) > this.windowMs) this.restored.delete(digest);
    }
  }

  /**
   * The table for STATE_DIR: pids as digests; sessions still connected count as disconnected at
   * `now` (the service is going away, their clients will reconnect).
   */
  exportPersisted(now: number): PersistedSession[] {
    const out: PersistedSession[] = [];
    const one = (pidHash: string, s: Session) => out.push({
      pidHash, role: s.role, groupCode: s.groupCode, obsName: s.obsName, matchId: s.matchId, playerId: s.playerId,
      disconnectedAt: s.disconnectedAt ?? now,
    });
    for (const s of this.byPid.values()) one(sha256Hex(s.pid), s);
    for (const [digest, s] of this.restored) one(digest, s);
    return out;
  }

  /** Sessions read from STATE_DIR; those past the window are skipped. Returns how many were kept. */
  importPersisted(list: PersistedSession[], now: number): number {
    let n = 0;
    for (const p of list) {
      if (typeof p.pidHash !== 'string' || (p.role !== 'observer' && p.role !== 'auxiliary')) continue;
      if (now - p.disconnectedAt > this.windowMs) continue;
      this.restored.set(p.pidHash, {
        role: p.role, pid: '', groupCode: p.groupCode, obsName: p.obsName, matchId: p.matchId, playerId: p.playerId,
        socketId: null, disconnectedAt: p.disconnectedAt,
      });
      n++;
    }
    this.version++;
    return n;
  }
}
