// Sessions that survive transport drops (docs/client-contract.md 1.5): a socket that arrives presenting a known
// session id takes the session over, whether or not socket.io's own recovery succeeded (the real
// clients never re-send their logon). An old socket of the session still open is closed, and what
// it had waiting in its backlog moves to the new one. While a remote SessionStore looks the session
// up, the socket's events wait (in order) and are handled once it answered.
import { sessionPid } from '../internals/socketio.js';
import type { Logger } from '../base/log.js';
import { whenReady } from '../ports/awaitable.js';
import type { SessionStore, TakenOver } from '../ports/session-store.js';
import type { IngestBacklog } from './backlog.js';
import { boundSession, type BoundSession, type SocketReplies, type SocketState } from './socket-state.js';

export interface ResumeDeps {
  log: Logger;
  sessions: SessionStore;
  backlog: IngestBacklog;
  replies: SocketReplies;
  /** The open sockets of this listener, by socket id. */
  states: ReadonlyMap<string, SocketState>;
  /** Most events held while a lookup is pending (the backlog's bound). */
  maxHeld: number;
  /** A socket took a session over (the standby relay, link health). */
  resumed?(session: BoundSession): void;
}

export class SessionResume {
  constructor(private readonly deps: ResumeDeps) {}

  /** At connection, before any event of the socket is handled. */
  atConnection(state: SocketState, now: number): void {
    const { socket } = state;
    const pid = sessionPid(socket) ?? '';
    const presented = socket.recovered ? pid : (socket.handshake.auth as { pid?: unknown } | undefined)?.pid;
    const pending = this.deps.sessions.takeOver(presented, pid, socket.id, now);
    if (pending instanceof Promise) state.held = [];
    whenReady(pending, (taken) => {
      const held = state.held;
      state.held = null;
      if (taken) this.resume(state, presented as string, taken);
      for (const { event, args } of held ?? []) this.deps.backlog.receive(state, event, args); // through the socket's budget
    }, (err) => {
      const held = state.held;
      state.held = null;
      this.deps.log.error({ socket: socket.id, error: (err as Error)?.message }, 'session lookup failed');
      for (const { event, args } of held ?? []) this.deps.backlog.receive(state, event, args);
    });
  }

  /** An event that arrived while the lookup is pending; false when the socket is not waiting for one. */
  hold(state: SocketState, event: string, args: unknown[]): boolean {
    if (!state.held) return false;
    if (state.held.length >= this.deps.maxHeld) this.deps.replies.drop(state, 'rate_limited');
    else state.held.push({ event, args });
    return true;
  }

  private resume(state: SocketState, previousId: string, taken: TakenOver): void {
    const { socket } = state;
    const waiting = this.deps.backlog.handOver(previousId, state);
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
    this.deps.log.info({ socket: socket.id, role: s.role, groupCode: s.groupCode, matchId: s.matchId, recovered: socket.recovered, waiting }, 'session resumed');
  }
}
