// SessionStore: the authenticated ingestion sessions (docs/client-contract.md 1.5). The real clients never
// re-send their logon after a reconnection, so every session is kept under the private session id
// (pid) socket.io issued to its socket, while a socket holds it and for RECOVERY_WINDOW_MS after
// its socket went away; a socket presenting that pid takes it over.
//
// Shared between processes, a session can be taken over on another node than the one it logged on
// to (a client lands where the balancer sends it). The lookups on the connection and logon path
// are `Awaitable`: the in-process adapter answers at once, so a client's first events after its
// CONNECT find the session as before; a remote adapter answers later and the ingestion listener
// holds the socket's events until it has. Ending sessions is a control operation (Promise); the
// sockets of ended sessions are closed by whichever process holds them (ControlBus).
// Adapters: sessions/adapters/memory/session-store.ts, sessions/adapters/state-dir/session-store.ts (STATE_DIR).
// Contract: test/main/sessions/session-store.contract.ts.
import type { Awaitable } from '../base/awaitable.js';

export type Role = 'observer' | 'auxiliary';

export interface SessionRecord {
  /** The session id it is kept under: the pid of the socket that logged on or last took it over. */
  readonly id: string;
  readonly role: Role;
  /** Observer: the group code it authenticated with ('' for auxiliary sessions). */
  readonly groupCode: string;
  readonly obsName: string;
  /** Auxiliary: the game's match id and the roster player it logged on as ('' for observers). */
  readonly matchId: string;
  readonly playerId: string;
  /**
   * Observer: the credential it logged on with, when it is the standby's secret (standby/standby-store.ts);
   * absent for the group secret's seat. Kept by every adapter, so a resume, a restart and another
   * node keep the session in its seat.
   */
  readonly seat?: 'standby';
  /** The socket holding it; null once that socket went away. */
  readonly socketId: string | null;
  /** When its socket went away (null while held): resumable until this + RECOVERY_WINDOW_MS. */
  readonly disconnectedAt: number | null;
}

/** A new session: held by `socketId` now. */
export type NewSession = Omit<SessionRecord, 'disconnectedAt'> & { socketId: string };

export interface TakenOver {
  /** The session, now under the new id and held by the new socket. */
  session: SessionRecord;
  /** The socket that held it before (still open, or null when it had gone away): the caller closes it. */
  previousSocketId: string | null;
  /** When it had gone away (null: it was still held). */
  disconnectedAt: number | null;
}

export interface SessionEnd {
  /** The observer sessions of this group code end. */
  observersOf?: string;
  /** The auxiliary sessions of this game match id end. */
  auxiliariesOf?: string;
}

export interface SessionStore {
  /** An observer logged on: kept under its id. */
  put(session: NewSession): void;
  /**
   * An auxiliary client logged on: kept, unless its player already has a live (held) auxiliary
   * session for the match id; then false and nothing changes. Atomic: of two, exactly one is kept.
   */
  putAuxiliary(session: NewSession): Awaitable<boolean>;
  /**
   * A socket arrived presenting `presentedId` (its CONNECT packet's pid, or the one recovery gave it
   * back). When a session has that id and is resumable (held, or gone for less than the window), it
   * is re-keyed under `newId` and held by `socketId`; undefined otherwise. Atomic: of two sockets
   * presenting one id, exactly one takes the session over. Adapters that persisted their sessions
   * (STATE_DIR) also find one by the digest of the presented id.
   */
  takeOver(presentedId: unknown, newId: string, socketId: string, now: number): Awaitable<TakenOver | undefined>;
  /**
   * The socket holding session `id` went away: the session stays resumable for the window. False
   * (and nothing changes) when another socket holds it now, or it is gone.
   */
  detach(id: string, socketId: string, now: number): boolean;
  /** Ends sessions (they can no longer be taken over); returns those ended, whose sockets must close. */
  end(which: SessionEnd): Promise<SessionRecord[]>;
  /** Forgets the sessions whose window has passed. */
  sweep(now: number): void;
  /** Sessions kept (held or resumable). */
  size(): number;
  /**
   * Shutdown: a persistent adapter writes the sessions now (those still held count as gone at
   * `now`: their clients will reconnect) and resolves once written.
   */
  flush(now: number): Promise<void>;
  /** Stops the adapter's timers (nothing is written). */
  close(): void;
}

/** An observer's seat: the standby's when it logged on with the standby secret, else the group's. */
export type Seat = 'group' | 'standby';

/** An observer session's seat. */
export const seatOf = (s: Pick<SessionRecord, 'role' | 'seat'>): Seat =>
  (s.role === 'observer' && s.seat === 'standby' ? 'standby' : 'group');
