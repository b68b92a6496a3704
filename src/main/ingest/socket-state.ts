// What the ingestion listener keeps per socket, what it counts (metrics, dashboard), and how it
// answers or ignores one socket's events: acks and refusals, drops counted by reason and logged
// once per socket and reason.
import type { Socket } from 'socket.io';
import type { Logger } from '../base/log.js';
import type { SessionRecord } from '../sessions/index.js';
import type { SocketBudget } from './budget.js';
import type { LinkStats } from './link-stats.js';

/**
 * The session a socket is bound to, as the socket knows it: a copy of the stored record's fixed
 * fields (the store re-keys, detaches and ends sessions; the socket's copy never changes).
 */
export type BoundSession = Pick<SessionRecord, 'id' | 'role' | 'groupCode' | 'obsName' | 'matchId' | 'playerId' | 'seat'>;

export const boundSession = (s: SessionRecord): BoundSession => ({
  id: s.id, role: s.role, groupCode: s.groupCode, obsName: s.obsName, matchId: s.matchId, playerId: s.playerId,
  ...(s.seat === 'standby' ? { seat: s.seat } : {}),
});

export interface SocketState {
  readonly socket: Socket;
  session: BoundSession | null;
  logonPending: boolean;
  /** Events received while its session is being looked up (a remote SessionStore), handled in order once it is. */
  held: Array<{ event: string; args: unknown[] }> | null;
  /** Drop kinds already logged for this socket: each is logged once, then only counted. */
  logged: Set<string>;
  /** Per-socket budget: token bucket and backlog (budget.ts). */
  budget: SocketBudget;
  /** Last event received (or the connection time): unauthenticated sockets idle for IDLE_SOCKET_TIMEOUT_MS are closed. */
  lastEventAt: number;
  /** The link's health: data messages, round trip, drops (link-stats.ts; dashboard). */
  link: LinkStats;
}

/** The ingestion listener's counters (metrics, dashboard, tests). */
export class IngestCounters {
  readonly dropped: Record<string, number> = {};
  /** Events received by name (known names, else 'other') and sent by name. */
  readonly eventsIn: Record<string, number> = {};
  readonly eventsOut: Record<string, number> = {};
  /** Sockets closed by the service: idle, logons refused by a cap, transports closed because the session store did not answer (resume.ts). */
  readonly closed = { idle: 0, capacity: 0, lookup: 0 };
  /** Backlog figures: events that waited, the most one socket had waiting at once. */
  readonly backlog = { queued: 0, peak: 0 };
}

/** Answers to one socket and what is counted about it. */
export class SocketReplies {
  constructor(private readonly log: Logger, private readonly counters: IngestCounters) {}

  emit(socket: Socket, event: string, payload: string): void {
    this.counters.eventsOut[event] = (this.counters.eventsOut[event] ?? 0) + 1;
    socket.emit(event, payload);
  }

  /** A refused logon: the ack with its reason, then the socket is closed. */
  fail(socket: Socket, event: 'obs_logon_ack' | 'aux_logon_ack', type: string, reason: string): void {
    this.emit(socket, event, JSON.stringify({ type, value: false, reason }));
    socket.disconnect(true);
  }

  /** An event ignored: counted by reason, logged once per socket and reason. */
  drop(state: SocketState, reason: string): void {
    this.counters.dropped[reason] = (this.counters.dropped[reason] ?? 0) + 1;
    state.link.drop(reason);
    if (state.logged.has(reason)) return;
    state.logged.add(reason);
    this.log.info({ socket: state.socket.id, reason }, 'ingestion message ignored');
  }

  /** Events not applied because their session ended (the match is gone, or the secret it logged on with). */
  dropEnded(state: SocketState, count: number): void {
    this.counters.dropped.session_ended = (this.counters.dropped.session_ended ?? 0) + count;
    if (state.logged.has('session_ended')) return;
    state.logged.add('session_ended');
    this.log.info({ socket: state.socket.id, reason: 'session_ended', count }, 'ingestion messages not applied: session ended');
  }

  /** A handler threw: counted `handler_error`, logged once per socket (socket.io runs handlers in process.nextTick: uncaught, it would end the process). */
  handlerFailed(state: SocketState, event: string, err: unknown): void {
    this.counters.dropped.handler_error = (this.counters.dropped.handler_error ?? 0) + 1;
    if (state.logged.has('handler_error')) return;
    state.logged.add('handler_error');
    this.log.error({ socket: state.socket.id, event, error: (err as Error)?.message }, 'ingestion handler failed');
  }

  /** The socket now carries the session (socket.data: what the listener knows of it). */
  bind(state: SocketState, session: BoundSession): void {
    state.session = session;
    state.socket.data = { role: session.role, groupCode: session.groupCode, obsName: session.obsName, matchId: session.matchId, playerId: session.playerId };
  }
}
