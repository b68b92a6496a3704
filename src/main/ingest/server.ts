// Ingestion listener (5100): observer and auxiliary clients (docs/client-contract.md 1–4). Connection state
// recovery is on (docs/client-contract.md 1.5), so every emit goes through the adapter: IngestAdapter keeps it
// on this server. Payloads it only forwards are not parsed here; the shards parse them.
//
// This file wires a socket's events to the jobs, each in its own file: session takeover at
// connection (resume.ts), the budget and backlog every event passes first (backlog.ts, budget.ts;
// the credit after a stall of the thread: base/loop-beat.ts), then the admitted event's handler
// (dispatch.ts): the two logons (logon.ts), the payload check (payload-check.ts); and keeps the listener's own:
// idle sweeps, keepalives, closing the sockets of ended sessions (ControlBus), shutdown.
import type { Server } from 'socket.io';
import type { KeyValidator } from '../backend/index.js';
import type { Config } from '../base/config.js';
import { idleSweepMs, INGEST_KEEPALIVE_MS, INGEST_SEND_BUFFER_BYTES } from '../base/limits.js';
import type { Logger } from '../base/log.js';
import type { MatchDirectory, MatchLifecycle, MatchRouting } from '../matches/index.js';
import type { ControlBus } from '../control/index.js';
import { seatOf, type SessionStore } from '../sessions/index.js';
import type { StandbyAdmission, StandbyRelay } from '../standby/index.js';
import { AddressLimiter } from '../sockets/address-limit.js';
import { IngestAdapter } from '../sockets/adapters.js';
import { decodeHot, ingestParser, OTHER_EVENT } from '../sockets/ingest-parser.js';
import { ingestLane } from '../internals/ingest-lane.js';
import { createIoServer } from '../sockets/io-server.js';
import type { TemplatedApp } from '../internals/uws.js';
import { IngestBacklog } from './backlog.js';
import { SocketBudget, type BudgetLimits } from './budget.js';
import { IngestDispatch } from './dispatch.js';
import { PayloadCheck } from './payload-check.js';
import { Logons, type LogonDeps } from './logon.js';
import { SessionResume } from './resume.js';
import { IngestCounters, SocketReplies, type BoundSession, type SocketState } from './socket-state.js';
import { LinkEvents, LinkStats } from './link-stats.js';
import { clientAddress } from '../base/client-address.js';
import type { LoopBeat } from '../base/loop-beat.js';

export interface IngestDeps {
  config: Config;
  log: Logger;
  keys: KeyValidator;
  directory: MatchDirectory;
  lifecycle: MatchLifecycle;
  routing: MatchRouting;
  sessions: SessionStore;
  control: ControlBus;
  /** Scale-out: whether the shared store (Redis) is reachable; logons need it. Unset: always (one process). */
  sharedStoreUp?: () => boolean;
  /** The standby observers: who may log on as one, and the owner's relay that learns which seats have sockets here. */
  standby?: { admission: StandbyAdmission; relay: StandbyRelay };
  /** The schedule (schedule/keeper.ts): a logon to a scheduled code takes the fixture's teams and series. */
  schedule?: LogonDeps['schedule'];
  /** The main thread's heartbeat (base/loop-beat.ts): a stall of the thread gives every budget the rate's worth of it. */
  beat: Pick<LoopBeat, 'credit'>;
  /** Test-only events (see test/main/sockets/socket-isolation.test.ts); never enabled from the environment. */
  testHooks: boolean;
}

/** The events of the ingestion listener; any other arrives as OTHER_EVENT (ingest-parser.ts) and is counted as `unknown_event` (metrics labels stay bounded). */
const KNOWN_EVENTS = new Set(['obs_logon', 'aux_logon', 'obs_data', 'aux_data']);

export class IngestServer {
  readonly io: Server;
  readonly addresses: AddressLimiter;
  readonly counters = new IngestCounters();
  /** Resumes and reconnection logons per group code, the last 10 minutes (link health). */
  readonly linkEvents = new LinkEvents();
  private readonly log: Logger;
  private readonly states = new Map<string, SocketState>();
  private readonly limits: BudgetLimits;
  private readonly replies: SocketReplies;
  /** Every event's budget and the backlogs (backlog.ts). */
  private readonly backlog: IngestBacklog;
  private readonly resume: SessionResume;
  private readonly logons: Logons;
  private readonly data: PayloadCheck;
  private readonly timer: NodeJS.Timeout;
  private readonly idleTimer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  /** Set at shutdown: sockets closing now are not players leaving (no auxiliary-disconnect changes). */
  private shuttingDown = false;

  constructor(app: TemplatedApp, private readonly deps: IngestDeps) {
    const c = deps.config;
    this.log = deps.log.child({ module: 'ingest' });
    this.limits = {
      rate: c.INGEST_RATE_PER_SOCKET, burst: c.INGEST_BURST_PER_SOCKET, backlogMessages: c.INGEST_BACKLOG_PER_SOCKET,
      backlogBytes: c.INGEST_BACKLOG_BYTES_PER_SOCKET, largestMessage: c.MAX_MESSAGE_BYTES,
    };
    this.replies = new SocketReplies(this.log, this.counters);
    this.logons = new Logons({
      config: c, log: this.log, keys: deps.keys, directory: deps.directory, lifecycle: deps.lifecycle, sessions: deps.sessions,
      replies: this.replies, counters: this.counters, sharedStoreUp: deps.sharedStoreUp ?? (() => true),
      ...(deps.standby ? { standby: deps.standby.admission } : {}),
      ...(deps.schedule ? { schedule: deps.schedule } : {}),
      seatOpened: (code, seat, reconnected) => {
        if (reconnected) this.linkEvents.reconnected(code, Date.now());
        deps.standby?.relay.socketOpen(code, seat);
      },
    });
    this.data = new PayloadCheck(c, deps.routing, this.replies);
    // Built from the last an event runs through (dispatch) to the first (resume): each is handed the next.
    const dispatch = new IngestDispatch(this.logons, this.data, this.replies);
    this.backlog = new IngestBacklog({ limits: this.limits, stall: deps.beat, counters: this.counters, replies: this.replies, handle: dispatch.handle });
    this.resume = new SessionResume({
      log: this.log, sessions: deps.sessions, backlog: this.backlog, replies: this.replies, counters: this.counters, states: this.states,
      maxHeld: Math.max(1, c.INGEST_BACKLOG_PER_SOCKET),
      retryMs: c.SESSION_LOOKUP_RETRY_MS, deadlineMs: c.SESSION_LOOKUP_DEADLINE_MS, windowMs: c.RECOVERY_WINDOW_MS,
      resumed: (session) => {
        if (session.role !== 'observer') return;
        this.linkEvents.resumed(session.groupCode, Date.now());
        deps.standby?.relay.socketOpen(session.groupCode, seatOf(session));
      },
    });
    this.addresses = new AddressLimiter(c.MAX_SOCKETS_PER_ADDRESS, c.IPV6_PREFIX_LENGTH);
    const parser = ingestParser(deps.testHooks ? [...KNOWN_EVENTS, 'test_echo'] : KNOWN_EVENTS);
    this.io = createIoServer(app, c, { adapter: IngestAdapter, parser, recovery: true, maxBackpressure: INGEST_SEND_BUFFER_BYTES, allowRequest: this.addresses.allowRequest });
    this.addresses.attach(this.io);
    this.io.on('connection', (socket) => this.onConnection(socket));
    this.idleTimer = setInterval(() => this.closeIdle(Date.now()), idleSweepMs(c.IDLE_SOCKET_TIMEOUT_MS));
    this.idleTimer.unref();
    // Keepalive keeps each client's recovery offset fresh (docs/client-contract.md 1.5 item 4); sweep expired sessions.
    this.timer = setInterval(() => {
      const payload = JSON.stringify({ t: Date.now() });
      for (const state of this.states.values()) if (state.session) this.replies.emit(state.socket, 'service_keepalive', payload);
      deps.sessions.sweep(Date.now());
    }, INGEST_KEEPALIVE_MS);
    this.timer.unref();
    this.unsubscribe = deps.control.subscribe((message) => {
      if (message.t === 'match_removed' || message.t === 'secret_rotated') this.closeEnded(message.sessionIds);
    });
  }

  /** Events received by name, dropped by reason, sent by name; sockets closed; backlog figures (metrics). */
  get dropped(): Record<string, number> { return this.counters.dropped; }
  get eventsIn(): Record<string, number> { return this.counters.eventsIn; }
  get eventsOut(): Record<string, number> { return this.counters.eventsOut; }
  get closed(): IngestCounters['closed'] { return this.counters.closed; }

  private onConnection(socket: import('socket.io').Socket): void {
    // Every handler is bound synchronously: the client flushes buffered emits right after CONNECT.
    const now = Date.now();
    const h = socket.handshake;
    const link = new LinkStats(clientAddress(this.deps.config.TRUST_PROXY, h.address, h.headers['x-forwarded-for'], h.headers['x-real-ip']), now);
    link.watch(socket);
    const state: SocketState = { socket, session: null, logonPending: false, held: null, logged: new Set(), budget: new SocketBudget(this.limits, now), lastEventAt: now, link };
    this.states.set(socket.id, state);
    this.resume.atConnection(state, now);

    // Every event goes through the per-socket budget first (now, after what waits, or shed).
    const receive = (event: string, args: unknown[]) => {
      if (!this.resume.hold(state, event, args)) this.backlog.receive(state, event, args);
    };
    for (const event of KNOWN_EVENTS) socket.on(event, (...args: unknown[]) => receive(event, args));
    // The hot events' packets straight from the WebSocket to `receive`, as the listeners above get them (internals/ingest-lane.ts).
    ingestLane(socket, (packet) => {
      const hot = decodeHot(packet);
      if (hot === null) return false;
      const [event, payload] = hot.data as [string, unknown];
      receive(event, [payload]);
      return true;
    });
    socket.on(OTHER_EVENT, (...args: unknown[]) => receive('other', args));
    socket.on('disconnect', () => {
      this.states.delete(socket.id);
      this.resume.disconnected(state, Date.now());
      const session = state.session;
      if (!session) return;
      const detached = this.deps.sessions.detach(session.id, socket.id, Date.now());
      if (this.shuttingDown) return; // the service is going away, not the player
      if (detached && session.role === 'observer') this.deps.standby?.relay.socketClosed(session.groupCode, seatOf(session), Date.now());
      if (detached && session.role === 'auxiliary' && session.playerId) this.deps.routing.auxDisconnected(session.matchId, session.playerId);
    });
    if (this.deps.testHooks) socket.on('test_echo', (payload: unknown) => socket.emit('test_echo', payload));
  }

  /** Sessions ended (their match is gone, or its secret was rotated): this listener's sockets of them close, their backlogs are not applied. */
  private closeEnded(sessionIds: readonly string[]): void {
    if (sessionIds.length === 0) return;
    const ended = new Set(sessionIds);
    this.backlog.clearEnded(ended);
    for (const state of this.states.values()) {
      if (!state.session || !ended.has(state.session.id)) continue;
      state.session = null;
      state.socket.disconnect(true);
    }
  }

  /** Sockets that are not logged on and have sent nothing for IDLE_SOCKET_TIMEOUT_MS are closed. */
  private closeIdle(now: number): void {
    const limit = this.deps.config.IDLE_SOCKET_TIMEOUT_MS;
    for (const state of this.states.values()) {
      if (state.session || state.logonPending || now - state.lastEventAt < limit) continue;
      this.counters.closed.idle++;
      if (!state.logged.has('idle')) {
        state.logged.add('idle');
        this.log.info({ socket: state.socket.id }, 'idle unauthenticated socket closed');
      }
      state.socket.disconnect(true);
    }
  }

  /** Open sockets by kind: observer, auxiliary, unauthenticated (metrics). */
  socketCounts(): { observer: number; auxiliary: number; unauthenticated: number } {
    const out = { observer: 0, auxiliary: 0, unauthenticated: 0 };
    for (const { session } of this.states.values()) out[session?.role ?? 'unauthenticated']++;
    return out;
  }

  /** The sessions of this listener's open sockets (dashboard). */
  *connectedSessions(): IterableIterator<BoundSession> {
    for (const { session } of this.states.values()) if (session) yield session;
  }

  /** The observer sessions of this listener's open sockets with their links' health (dashboard). */
  *observerLinks(): IterableIterator<{ session: BoundSession; link: LinkStats; lastMessageAt: number }> {
    for (const { session, link, lastEventAt } of this.states.values()) if (session?.role === 'observer') yield { session, link, lastMessageAt: link.messages > 0 ? lastEventAt : 0 };
  }

  /** Events waiting in backlogs now (metrics). */
  backlogWaiting(): number {
    return this.backlog.count();
  }

  /** Backlog figures (metrics, tests): events that waited, the most one socket had waiting at once. */
  get backlogFigures(): IngestCounters['backlog'] {
    return this.counters.backlog;
  }

  /** Shutdown: sockets close so that clients reconnect (to the restarted service); sessions stay resumable. */
  async close(): Promise<void> {
    this.shuttingDown = true;
    clearInterval(this.timer);
    clearInterval(this.idleTimer);
    this.unsubscribe();
    this.backlog.close();
    await this.io.close();
  }
}
