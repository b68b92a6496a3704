// The resumable-session table (clients.md 1.5). Built-in connection state recovery fails when the
// stored-packet offset expired or when the client is back before the server saw the drop, and the
// real clients never re-send their logon; so every authenticated socket's session is also kept
// here under the private session id (pid) socket.io issued to it, for RECOVERY_WINDOW_MS after
// its socket disconnected.

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

  constructor(private readonly windowMs: number) {}

  get size(): number {
    return this.byPid.size;
  }

  add(session: Session): void {
    this.byPid.set(session.pid, session);
  }

  /** A session that a reconnecting socket may take over: still connected, or gone for less than the window. */
  resumable(pid: unknown, now: number): Session | undefined {
    if (typeof pid !== 'string') return undefined;
    const session = this.byPid.get(pid);
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
  }

  disconnected(session: Session, socketId: string, now: number): void {
    if (session.socketId !== socketId) return; // another socket has taken it over already
    session.socketId = null;
    session.disconnectedAt = now;
  }

  delete(session: Session): void {
    if (this.byPid.get(session.pid) === session) this.byPid.delete(session.pid);
  }

  /** Sessions matching a predicate (used when a match ends: its sessions end too). */
  filter(pred: (s: Session) => boolean): Session[] {
    const out: Session[] = [];
    for (const s of this.byPid.values()) if (pred(s)) out.push(s);
    return out;
  }

  sweep(now: number): void {
    for (const [pid, s] of this.byPid) {
      if (s.disconnectedAt !== null && now - s.disconnectedAt > this.windowMs) this.byPid.delete(pid);
    }
  }
}
