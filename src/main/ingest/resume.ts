// Sessions that survive transport drops (docs/client-contract.md 1.5): a socket that arrives presenting a known
// session id takes the session over, whether or not socket.io's own recovery succeeded (the real
// clients never re-send their logon). An old socket of the session still open is closed, and what
// it had waiting in its backlog moves to the new one. While a remote SessionStore looks the session
// up, the socket's events wait (in order) and are handled once it answered.
//
// A lookup the store did not answer (Redis unreachable, a failover under way) is not "no session":
// it is asked again, SESSION_LOOKUP_RETRY_MS doubling up to LOOKUP_RETRY_MAX_MS, while the socket's
// events stay held (docs/reliability.md, "Redis failover"). When the hold is full (maxHeld) or the
// lookup still has no answer SESSION_LOOKUP_DEADLINE_MS after the connection, the socket's
// transport is closed: the client sees `transport close` and reconnects by itself (a server-side
// `disconnect()` would not make it: "io server disconnect" ends its reconnection). It then
// presents the pid socket.io issued to the closed socket, not its session's, so that pid is
// "parked" here with the session id it had presented and the events it had sent: the next socket
// presenting it looks the session up again and gets those events first. A socket whose client
// closed it while its lookup was pending is parked the same way.
import { sessionPid } from '../internals/socketio.js';
import type { Logger } from '../base/log.js';
import { LOOKUP_RETRY_MAX_MS, PARKED_LOOKUPS_MAX } from '../base/limits.js';
import { whenReady, type Awaitable } from '../base/awaitable.js';
import type { SessionStore, TakenOver } from '../sessions/index.js';
import type { IngestBacklog } from './backlog.js';
import { boundSession, type BoundSession, type IngestCounters, type SocketReplies, type SocketState } from './socket-state.js';

type Held = { event: string; args: unknown[] };

export interface ResumeDeps {
  log: Logger;
  sessions: SessionStore;
  backlog: IngestBacklog;
  replies: SocketReplies;
  counters: IngestCounters;
  /** The open sockets of this listener, by socket id. */
  states: ReadonlyMap<string, SocketState>;
  /** Most events held while a lookup is pending (the backlog's bound). */
  maxHeld: number;
  /** SESSION_LOOKUP_RETRY_MS: the first wait before a lookup the store did not answer is asked again. */
  retryMs: number;
  /** SESSION_LOOKUP_DEADLINE_MS: a socket whose lookup has had no answer this long after its connection has its transport closed. */
  deadlineMs: number;
  /** RECOVERY_WINDOW_MS: how long a parked pid waits for its client. */
  windowMs: number;
  /** A socket took a session over (the standby relay, link health). */
  resumed?(session: BoundSession): void;
}

/** A lookup not answered yet. */
interface Lookup {
  presented: unknown;
  pid: string;
  /** The connection time (the deadline counts from it). */
  since: number;
  failures: number;
  timer: NodeJS.Timeout | null;
  inFlight: boolean;
  /** The socket went away: the answer, when it comes, settles its parked pid. */
  gone: boolean;
  /** Its transport is closing (giveUp ran). */
  closing: boolean;
  settled: () => void;
}

/** A pid whose socket closed before its lookup was answered. */
interface Parked {
  presented: unknown;
  held: Held[];
  at: number;
  /** Resolves once the closed socket's lookup settled (a late success re-keyed the session under the pid). */
  ready: Promise<void>;
}

export class SessionResume {
  private readonly lookups = new Map<SocketState, Lookup>();
  private readonly parked = new Map<string, Parked>();

  constructor(private readonly deps: ResumeDeps) {}

  /** At connection, before any event of the socket is handled. */
  atConnection(state: SocketState, now: number): void {
    const { socket } = state;
    const pid = sessionPid(socket) ?? '';
    const presented = socket.recovered ? pid : (socket.handshake.auth as { pid?: unknown } | undefined)?.pid;
    const lookup: Lookup = { presented, pid, since: now, failures: 0, timer: null, inFlight: false, gone: false, closing: false, settled: () => undefined };
    const parked = typeof presented === 'string' ? this.unpark(presented, now) : undefined;
    if (!parked) return this.ask(state, lookup);
    // The client of a socket closed unanswered: its session id and events come back.
    state.held = parked.held;
    lookup.presented = parked.presented;
    this.lookups.set(state, lookup);
    void parked.ready.then(() => {
      if (lookup.gone) return;
      lookup.presented = parked.presented;
      this.ask(state, lookup);
    });
  }

  /** An event that arrived while the lookup is pending; false when the socket is not waiting for one. */
  hold(state: SocketState, event: string, args: unknown[]): boolean {
    if (!state.held) return false;
    if (state.held.length >= this.deps.maxHeld) {
      this.deps.replies.drop(state, 'rate_limited');
      const lookup = this.lookups.get(state);
      if (lookup) this.giveUp(state, lookup, 'held events full');
    } else state.held.push({ event, args });
    return true;
  }

  /** The socket closed: a pending lookup's pid is parked with its events (the client presents it next). */
  disconnected(state: SocketState, now: number): void {
    const lookup = this.lookups.get(state);
    if (!lookup) return;
    this.lookups.delete(state);
    if (lookup.timer) clearTimeout(lookup.timer);
    lookup.gone = true;
    const ready = lookup.inFlight ? new Promise<void>((resolve) => { lookup.settled = resolve; }) : Promise.resolve();
    if (lookup.pid) this.park(lookup.pid, { presented: lookup.presented, held: state.held ?? [], at: now, ready });
    state.held = null;
  }

  private ask(state: SocketState, lookup: Lookup): void {
    let pending: Awaitable<TakenOver | undefined>;
    try {
      pending = this.deps.sessions.takeOver(lookup.presented, lookup.pid, state.socket.id, Date.now());
    } catch (err) {
      pending = Promise.reject(err);
    }
    if (pending instanceof Promise) {
      state.held ??= [];
      lookup.inFlight = true;
      this.lookups.set(state, lookup);
    }
    whenReady(pending, (taken) => {
      lookup.inFlight = false;
      if (lookup.gone) return this.answeredGone(state, lookup, taken);
      this.lookups.delete(state);
      const held = state.held;
      state.held = null;
      if (taken) this.resume(state, lookup, taken);
      for (const { event, args } of held ?? []) this.deps.backlog.receive(state, event, args); // through the socket's budget
    }, (err) => {
      lookup.inFlight = false;
      if (lookup.gone) return lookup.settled();
      this.failed(state, lookup, err);
    });
  }

  /** The store did not answer: asked again after a backoff, or the transport closes at the deadline. */
  private failed(state: SocketState, lookup: Lookup, err: unknown): void {
    lookup.failures++;
    if (lookup.failures === 1) {
      this.deps.log.warn({ socket: state.socket.id, error: (err as Error)?.message }, 'session lookup failed (the store did not answer); retried, events held');
    }
    const now = Date.now();
    if (now - lookup.since >= this.deps.deadlineMs) return this.giveUp(state, lookup, 'deadline');
    const wait = Math.min(Math.max(LOOKUP_RETRY_MAX_MS, this.deps.retryMs), this.deps.retryMs * 2 ** (lookup.failures - 1));
    lookup.timer = setTimeout(() => {
      lookup.timer = null;
      if (!lookup.gone) this.ask(state, lookup);
    }, Math.min(wait, Math.max(1, lookup.since + this.deps.deadlineMs - now)));
    lookup.timer.unref();
  }

  /** The transport closes, so that the client reconnects by itself and presents its session again (parked at the disconnect). */
  private giveUp(state: SocketState, lookup: Lookup, why: string): void {
    if (lookup.closing) return;
    lookup.closing = true;
    this.deps.counters.closed.lookup++;
    this.deps.log.warn({ socket: state.socket.id, why, failures: lookup.failures, held: state.held?.length ?? 0 }, 'session lookup unanswered: transport closed so that the client reconnects');
    state.socket.conn.close();
  }

  /** The answer for a socket that went away meanwhile. */
  private answeredGone(state: SocketState, lookup: Lookup, taken: TakenOver | undefined): void {
    if (taken) {
      // Re-keyed under this socket's pid, the one its client presents next: resumable from now.
      this.deps.sessions.detach(taken.session.id, state.socket.id, Date.now());
      const parked = this.parked.get(lookup.pid);
      if (parked) parked.presented = lookup.pid;
    }
    lookup.settled();
  }

  private park(pid: string, entry: Parked): void {
    for (const [key, p] of this.parked) {
      if (this.parked.size < PARKED_LOOKUPS_MAX && entry.at - p.at <= this.deps.windowMs) break;
      this.parked.delete(key); // oldest first (insertion order)
    }
    this.parked.set(pid, entry);
  }

  private unpark(pid: string, now: number): Parked | undefined {
    const entry = this.parked.get(pid);
    if (!entry) return undefined;
    this.parked.delete(pid);
    return now - entry.at <= this.deps.windowMs ? entry : undefined;
  }

  private resume(state: SocketState, lookup: Lookup, taken: TakenOver): void {
    const { socket } = state;
    const waiting = this.deps.backlog.handOver(lookup.presented as string, state);
    this.deps.replies.bind(state, boundSession(taken.session));
    const oldSocketId = taken.previousSocketId;
    if (oldSocketId && oldSocketId !== socket.id) {
      const old = this.deps.states.get(oldSocketId);
      if (old) {
        old.session = null;
        old.socket.disconnect(true);
      }
    }
    const s = taken.session;
    this.deps.resumed?.(boundSession(s));
    this.deps.log.info({ socket: socket.id, role: s.role, groupCode: s.groupCode, matchId: s.matchId, recovered: socket.recovered, waiting, lookupFailures: lookup.failures }, 'session resumed');
  }
}
