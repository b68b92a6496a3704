// Ingestion listener (5100): observer and auxiliary clients (clients.md 1–4). Connection state
// recovery is on (clients.md 1.5), so every emit goes through the adapter: IngestAdapter keeps it
// on this server. Payloads it only forwards are not parsed here; the shards parse them.
import semver from 'semver';
import type { Server, Socket } from 'socket.io';
import type { KeyValidator } from '../backend/key-validation.js';
import { clientAddress } from '../client-address.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { MatchHub } from '../matches/hub.js';
import { keyIdOf, secretMatches } from '../matches/credentials.js';
import { valueDepthExceeds } from '../../protocol/json-depth.js';
import { AddressLimiter } from '../sockets/address-limit.js';
import { IngestAdapter } from '../sockets/adapters.js';
import { createIoServer, parsePayload } from '../sockets/io-server.js';
import type { TemplatedApp } from '../uws.js';
import { SERVICE_VERSION } from '../version.js';
import { isAuxLogon, isObsLogon } from '../../schemas/logon.js';
import { SocketBudget, type BudgetLimits } from './budget.js';
import { SessionTable, type Session } from './sessions.js';

export interface IngestDeps {
  config: Config;
  log: Logger;
  keys: KeyValidator;
  hub: MatchHub;
  /** Test-only events (see test/socket-isolation.test.ts); never enabled from the environment. */
  testHooks: boolean;
}

const KEEPALIVE_MS = 30_000;
/** Heartbeat of the main thread, to see its own stalls (see `stallMs`). */
const BEAT_MS = 50;

/** The events of the ingestion listener; any other is counted as `unknown_event` (metrics labels stay bounded). */
const KNOWN_EVENTS = new Set(['obs_logon', 'aux_logon', 'obs_data', 'aux_data']);

interface SocketState {
  session: Session | null;
  logonPending: boolean;
  /** Drop kinds already logged for this socket: each is logged once, then only counted. */
  logged: Set<string>;
  /** Per-socket budget: token bucket and backlog (budget.ts). */
  budget: SocketBudget;
  /** Last event received (or the connection time): unauthenticated sockets idle for IDLE_SOCKET_TIMEOUT_MS are closed. */
  lastEventAt: number;
}

export class IngestServer {
  readonly io: Server;
  readonly sessions: SessionTable;
  readonly dropped: Record<string, number> = {};
  /** Events received by name (known names, else 'other') and sent by name (metrics). */
  readonly eventsIn: Record<string, number> = {};
  readonly eventsOut: Record<string, number> = {};
  /** Sockets closed by the service: idle, and logons refused by a cap (metrics). */
  readonly closed = { idle: 0, capacity: 0 };
  readonly addresses: AddressLimiter;
  private readonly log: Logger;
  private readonly states = new Map<string, { socket: Socket; state: SocketState }>();
  /** Sockets with events waiting in their budget's backlog (also after they disconnected: what was received is applied). */
  private readonly backlogged = new Map<SocketState, Socket>();
  private drainTimer: NodeJS.Timeout | null = null;
  private readonly limits: BudgetLimits;
  /** Backlog figures (metrics, tests): events that waited, the most one socket had waiting at once. */
  readonly backlog = { queued: 0, peak: 0 };
  private readonly timer: NodeJS.Timeout;
  private readonly idleTimer: NodeJS.Timeout;
  /** Set at shutdown: sockets closing now are not players leaving (no auxiliary-disconnect changes). */
  private shuttingDown = false;
  /**
   * The main thread's last stall (ms) and when it ended. Messages that arrived while it was busy
   * are read together afterwards; the budget then allows what they were sent over, so a client
   * within its rate is not shed because the service itself was slow.
   */
  private stallMs = 0;
  private stallEndedAt = 0;
  private lastBeat = Date.now();
  private readonly beatTimer: NodeJS.Timeout;

  constructor(app: TemplatedApp, private readonly deps: IngestDeps) {
    this.log = deps.log.child({ module: 'ingest' });
    this.sessions = new SessionTable(deps.config.RECOVERY_WINDOW_MS);
    const c = deps.config;
    this.limits = {
      rate: c.INGEST_RATE_PER_SOCKET, burst: c.INGEST_BURST_PER_SOCKET, backlogMessages: c.INGEST_BACKLOG_PER_SOCKET,
      backlogBytes: c.INGEST_BACKLOG_BYTES_PER_SOCKET, largestMessage: c.MAX_MESSAGE_BYTES,
    };
    this.addresses = new AddressLimiter(deps.config.MAX_SOCKETS_PER_ADDRESS);
    this.io = createIoServer(app, deps.config, { adapter: IngestAdapter, recovery: true, maxBackpressure: 1024 * 1024, allowRequest: this.addresses.allowRequest });
    this.addresses.attach(this.io);
    this.io.on('connection', (socket) => this.onConnection(socket));
    const idleMs = deps.config.IDLE_SOCKET_TIMEOUT_MS;
    this.idleTimer = setInterval(() => this.closeIdle(Date.now()), Math.max(50, Math.min(5000, Math.floor(idleMs / 3))));
    this.idleTimer.unref();
    this.beatTimer = setInterval(() => {
      const now = Date.now();
      const lag = now - this.lastBeat - BEAT_MS;
      if (lag > BEAT_MS) {
        this.stallMs = lag;
        this.stallEndedAt = now;
      }
      this.lastBeat = now;
    }, BEAT_MS);
    this.beatTimer.unref();
    // Keepalive keeps each client's recovery offset fresh (clients.md 1.5 item 4); sweep expired sessions.
    this.timer = setInterval(() => {
      const payload = JSON.stringify({ t: Date.now() });
      for (const { socket, state } of this.states.values()) if (state.session) this.emit(socket, 'service_keepalive', payload);
      this.sessions.sweep(Date.now());
    }, KEEPALIVE_MS);
    this.timer.unref();
  }

  private onConnection(socket: Socket): void {
    // Every handler is bound synchronously: the client flushes buffered emits right after CONNECT.
    const now = Date.now();
    const state: SocketState = { session: null, logonPending: false, logged: new Set(), budget: new SocketBudget(this.limits, now), lastEventAt: now };
    this.states.set(socket.id, { socket, state });
    const pid = (socket as unknown as { pid?: string }).pid ?? '';

    if (socket.recovered) {
      const session = this.sessions.resumable(pid, now);
      if (session) this.resume(socket, state, session, pid);
    } else {
      const previousPid = (socket.handshake.auth as { pid?: unknown } | undefined)?.pid;
      const session = this.sessions.resumable(previousPid, now);
      if (session) this.resume(socket, state, session, pid);
    }

    // Every event goes through the per-socket budget first (now, after what waits, or shed).
    for (const event of KNOWN_EVENTS) socket.on(event, (...args: unknown[]) => this.receive(socket, state, event, args));
    socket.onAny((event: unknown, ...args: unknown[]) => {
      if (typeof event === 'string' && KNOWN_EVENTS.has(event)) return;
      if (this.deps.testHooks && event === 'test_echo') return;
      this.receive(socket, state, 'other', args);
    });
    socket.on('disconnect', () => {
      this.states.delete(socket.id);
      const session = state.session;
      if (!session) return;
      this.sessions.disconnected(session, socket.id, Date.now());
      if (this.shuttingDown) return; // the service is going away, not the player
      if (session.role === 'auxiliary' && session.playerId && session.socketId === null) this.deps.hub.auxDisconnected(session.matchId, session.playerId);
    });
    if (this.deps.testHooks) socket.on('test_echo', (payload: unknown) => socket.emit('test_echo', payload));
  }

  /**
   * A reconnecting socket takes over its session; an old socket still open is closed. What the old
   * socket received and still has waiting in its backlog moves to the new one, ahead of anything it
   * sends (the client flushes what it buffered while away right after this: budget.ts queues it).
   */
  private resume(socket: Socket, state: SocketState, session: Session, newPid: string): void {
    const oldSocketId = session.socketId;
    for (const old of [...this.backlogged.keys()].filter((st) => st.session === session)) {
      old.budget.handOver(state.budget);
      this.backlogged.delete(old);
    }
    const waiting = state.budget.waiting;
    if (waiting > 0) {
      this.backlogged.set(state, socket);
      this.armDrain();
    }
    this.sessions.rekey(session, newPid, socket.id);
    state.session = session;
    socket.data = { role: session.role, groupCode: session.groupCode, obsName: session.obsName, matchId: session.matchId, playerId: session.playerId };
    if (oldSocketId && oldSocketId !== socket.id) {
      const old = this.states.get(oldSocketId);
      if (old) {
        old.state.session = null;
        old.socket.disconnect(true);
      }
    }
    this.log.info({ socket: socket.id, role: session.role, groupCode: session.groupCode, matchId: session.matchId, recovered: socket.recovered, waiting }, 'session resumed');
  }

  private fail(socket: Socket, event: 'obs_logon_ack' | 'aux_logon_ack', type: string, reason: string): void {
    this.emit(socket, event, JSON.stringify({ type, value: false, reason }));
    socket.disconnect(true);
  }

  private emit(socket: Socket, event: string, payload: string): void {
    this.eventsOut[event] = (this.eventsOut[event] ?? 0) + 1;
    socket.emit(event, payload);
  }

  /** Right after a stall of the main thread, a bucket may also hold what the rate gave over it. */
  private stallBonus(now: number): number {
    return now - this.stallEndedAt < 2000 ? (this.stallMs * this.limits.rate) / 1000 : 0;
  }

  /**
   * Every received event, before anything else is done with it: it costs one token of the
   * socket's budget (budget.ts). Without a free token, or with events waiting before it, it waits
   * in the socket's backlog if the socket has a session (a real client catching up after a
   * reconnection), else, or past the backlog's bounds, it is shed (dropped `rate_limited`, logged
   * once per socket).
   */
  private receive(socket: Socket, state: SocketState, event: string, args: unknown[]): void {
    const now = Date.now();
    state.lastEventAt = now;
    this.eventsIn[event] = (this.eventsIn[event] ?? 0) + 1;
    const admission = state.budget.admit(now, this.stallBonus(now), event, args, state.session !== null);
    if (admission === 'now') return this.handle(socket, state, event, args);
    if (admission === 'shed') return this.drop(socket, state, 'rate_limited');
    this.backlog.queued++;
    this.backlog.peak = Math.max(this.backlog.peak, state.budget.waiting);
    this.backlogged.set(state, socket);
    this.armDrain();
  }

  /** One timer forwards the backlogs as their tokens come (every 1000 / INGEST_RATE_PER_SOCKET ms, 5–50 ms). */
  private armDrain(): void {
    if (this.drainTimer || this.backlogged.size === 0) return;
    const every = Math.min(50, Math.max(5, Math.ceil(1000 / this.limits.rate)));
    this.drainTimer = setTimeout(() => {
      this.drainTimer = null;
      const now = Date.now();
      const bonus = this.stallBonus(now);
      for (const [state, socket] of this.backlogged) {
        for (const item of state.budget.due(now, bonus)) this.handle(socket, state, item.event, item.args);
        if (state.budget.waiting === 0) this.backlogged.delete(state);
      }
      this.armDrain();
    }, every);
  }

  /**
   * An admitted event: exactly one argument, then its handler; a handler that throws is logged and
   * counted (socket.io runs handlers in process.nextTick: an exception would end the process).
   */
  private handle(socket: Socket, state: SocketState, event: string, args: unknown[]): void {
    if (event === 'other') return this.drop(socket, state, 'unknown_event');
    if (args.length !== 1) return this.drop(socket, state, 'bad_arguments');
    const payload = args[0];
    try {
      const pending = event === 'obs_logon' ? this.obsLogon(socket, state, payload)
        : event === 'aux_logon' ? this.auxLogon(socket, state, payload)
        : event === 'obs_data' ? this.obsData(socket, state, payload)
        : this.auxData(socket, state, payload);
      if (pending) pending.catch((err: unknown) => this.handlerFailed(socket, state, event, err));
    } catch (err) {
      this.handlerFailed(socket, state, event, err);
    }
  }

  /** Events waiting in backlogs now (metrics). */
  backlogWaiting(): number {
    let n = 0;
    for (const state of this.backlogged.keys()) n += state.budget.waiting;
    return n;
  }

  private handlerFailed(socket: Socket, state: SocketState, event: string, err: unknown): void {
    this.dropped.handler_error = (this.dropped.handler_error ?? 0) + 1;
    if (state.logged.has('handler_error')) return;
    state.logged.add('handler_error');
    this.log.error({ socket: socket.id, event, error: (err as Error)?.message }, 'ingestion handler failed');
  }

  /** Sockets that are not logged on and have sent nothing for IDLE_SOCKET_TIMEOUT_MS are closed. */
  private closeIdle(now: number): void {
    const limit = this.deps.config.IDLE_SOCKET_TIMEOUT_MS;
    for (const { socket, state } of this.states.values()) {
      if (state.session || state.logonPending || now - state.lastEventAt < limit) continue;
      this.closed.idle++;
      if (!state.logged.has('idle')) {
        state.logged.add('idle');
        this.log.info({ socket: socket.id }, 'idle unauthenticated socket closed');
      }
      socket.disconnect(true);
    }
  }

  /** Open sockets by kind: observer, auxiliary, unauthenticated (metrics). */
  socketCounts(): { observer: number; auxiliary: number; unauthenticated: number } {
    const out = { observer: 0, auxiliary: 0, unauthenticated: 0 };
    for (const { state } of this.states.values()) out[state.session?.role ?? 'unauthenticated']++;
    return out;
  }

  private versionProblem(version: unknown): string | null {
    const ok = typeof version === 'string' && semver.valid(version) !== null && semver.satisfies(version, this.deps.config.COMPATIBLE_CLIENT_RANGE);
    return ok ? null : `Client version ${typeof version === 'string' ? version : 'undefined'} is not compatible with server version ${SERVICE_VERSION}.`;
  }

  private async obsLogon(socket: Socket, state: SocketState, payload: unknown): Promise<void> {
    if (state.session || state.logonPending) return this.drop(socket, state, 'repeated_logon'); // check 0
    if (this.payloadTooLarge(payload)) {
      this.log.info({ socket: socket.id }, 'observer logon refused: payload too large');
      return this.fail(socket, 'obs_logon_ack', 'authenticate', 'Invalid packet.');
    }
    const parsed = parsePayload(payload);
    if (!parsed.ok || valueDepthExceeds(parsed.value) || !isObsLogon(parsed.value)) {
      this.log.info({ socket: socket.id }, 'observer logon refused: invalid packet');
      return this.fail(socket, 'obs_logon_ack', 'authenticate', 'Invalid packet.');
    }
    const packet = parsed.value;
    const versionProblem = this.versionProblem(packet.clientVersion);
    if (versionProblem) {
      this.log.info({ socket: socket.id, clientVersion: String(packet.clientVersion) }, 'observer logon refused: version');
      return this.fail(socket, 'obs_logon_ack', 'authenticate', versionProblem);
    }
    state.logonPending = true;
    let validity;
    try {
      validity = await this.deps.keys.validate(packet.key);
    } finally {
      state.logonPending = false;
    }
    if (!socket.connected) return;
    if (!validity.valid) {
      this.log.info({ socket: socket.id, groupCode: packet.groupCode, reason: validity.reason }, 'observer logon refused: key');
      return this.fail(socket, 'obs_logon_ack', 'authenticate', validity.message);
    }
    const live = this.deps.hub.registry.get(packet.groupCode);
    let reason: string;
    if (live) {
      if (!secretMatches(live.secretDigest, packet.groupSecret)) {
        this.log.info({ socket: socket.id, groupCode: packet.groupCode }, 'observer logon refused: match live, wrong secret');
        return this.fail(socket, 'obs_logon_ack', 'authenticate', `Game with Group Code ${packet.groupCode} exists and is still live.`);
      }
      reason = 'reconnected';
    } else {
      const keyId = keyIdOf(packet.key, validity.organizationId);
      const refusal = this.deps.hub.admission(keyId);
      if (refusal) {
        this.closed.capacity++;
        this.log.warn({ socket: socket.id, groupCode: packet.groupCode, liveMatches: this.deps.hub.registry.count() }, 'observer logon refused: capacity');
        return this.fail(socket, 'obs_logon_ack', 'authenticate', refusal);
      }
      reason = this.deps.hub.create(packet, validity, keyId);
    }
    const session: Session = {
      role: 'observer', pid: (socket as unknown as { pid?: string }).pid ?? socket.id, groupCode: packet.groupCode,
      obsName: typeof packet.obsName === 'string' ? packet.obsName : '', matchId: '', playerId: '', socketId: socket.id, disconnectedAt: null,
    };
    this.bind(socket, state, session);
    this.emit(socket, 'obs_logon_ack', JSON.stringify({ type: 'authenticate', value: true, reason }));
    this.log.info({ socket: socket.id, groupCode: packet.groupCode, reconnected: reason === 'reconnected', client: this.clientOf(socket) }, 'observer logged on');
  }

  private auxLogon(socket: Socket, state: SocketState, payload: unknown): void {
    if (state.session || state.logonPending) return this.drop(socket, state, 'repeated_logon');
    if (!this.deps.config.AUX_CLIENTS_ENABLED) {
      this.log.info({ socket: socket.id }, 'auxiliary logon refused: auxiliary clients are disabled');
      return this.fail(socket, 'aux_logon_ack', 'aux_authenticate', 'Auxiliary clients are disabled on this server.');
    }
    if (this.payloadTooLarge(payload)) return this.fail(socket, 'aux_logon_ack', 'aux_authenticate', 'Invalid packet.');
    const parsed = parsePayload(payload);
    if (!parsed.ok || !isAuxLogon(parsed.value)) return this.fail(socket, 'aux_logon_ack', 'aux_authenticate', 'Invalid packet.');
    const packet = parsed.value;
    const versionProblem = this.versionProblem(packet.clientVersion);
    if (versionProblem) return this.fail(socket, 'aux_logon_ack', 'aux_authenticate', versionProblem);
    const matchId = typeof packet.matchId === 'string' ? packet.matchId : '';
    const playerId = typeof packet.playerId === 'string' ? packet.playerId : '';
    if (!matchId || !this.deps.hub.registry.groupsForMatchId(matchId)?.size) {
      return this.fail(socket, 'aux_logon_ack', 'aux_authenticate', `Game with Match ID ${matchId} not found.`);
    }
    // No key, and matchId and player ids are public in every frame: an auxiliary session is a player
    // of the game's roster (the real client sends its own id, clients.md 4.2), so there is at most
    // one per player (below) and none for an id the game does not know (docs/reliability.md).
    if (!this.deps.hub.registry.hasPlayer(matchId, playerId)) {
      this.log.info({ socket: socket.id, matchId, playerId }, 'auxiliary logon refused: player not on the roster');
      return this.fail(socket, 'aux_logon_ack', 'aux_authenticate', `Player ${playerId} is not on the roster of the game with Match ID ${matchId}.`);
    }
    // One live auxiliary session per player.
    if (this.sessions.filter((s) => s.role === 'auxiliary' && s.matchId === matchId && s.playerId === playerId && s.socketId !== null).length > 0) {
      this.log.warn({ socket: socket.id, matchId, playerId }, 'auxiliary logon refused: player already has a live session');
      return this.fail(socket, 'aux_logon_ack', 'aux_authenticate', `Player ${playerId} already has an auxiliary session for match ${matchId}.`);
    }
    const session: Session = {
      role: 'auxiliary', pid: (socket as unknown as { pid?: string }).pid ?? socket.id, groupCode: '', obsName: '',
      matchId, playerId, socketId: socket.id, disconnectedAt: null,
    };
    this.bind(socket, state, session);
    this.emit(socket, 'aux_logon_ack', JSON.stringify({ type: 'aux_authenticate', value: true, reason: '' }));
    this.log.info({ socket: socket.id, matchId, playerId, client: this.clientOf(socket) }, 'auxiliary client logged on');
  }

  /** The client's address for logs (the forwarded one with TRUST_PROXY=true). */
  private clientOf(socket: Socket): string {
    const h = socket.handshake;
    return clientAddress(this.deps.config.TRUST_PROXY, h.address, h.headers['x-forwarded-for'], h.headers['x-real-ip']);
  }

  private bind(socket: Socket, state: SocketState, session: Session): void {
    state.session = session;
    socket.data = { role: session.role, groupCode: session.groupCode, obsName: session.obsName, matchId: session.matchId, playerId: session.playerId };
    this.sessions.add(session);
  }

  private drop(socket: Socket, state: SocketState, reason: string): void {
    this.dropped[reason] = (this.dropped[reason] ?? 0) + 1;
    if (state.logged.has(reason)) return;
    state.logged.add(reason);
    this.log.info({ socket: socket.id, reason }, 'ingestion message ignored');
  }

  /** A logon larger than MAX_PAYLOAD_BYTES (an object payload is measured as JSON). */
  private payloadTooLarge(payload: unknown): boolean {
    const max = this.deps.config.MAX_PAYLOAD_BYTES;
    if (typeof payload === 'string') return payload.length > max;
    if (payload === null || typeof payload !== 'object' || valueDepthExceeds(payload)) return false;
    try {
      return JSON.stringify(payload).length > max;
    } catch {
      return true;
    }
  }

  /** The raw JSON text to forward: strings as received, plain objects re-encoded once. */
  private static raw(payload: unknown): string | null {
    if (typeof payload === 'string') return payload;
    if (payload !== null && typeof payload === 'object' && !Array.isArray(payload) && !Buffer.isBuffer(payload)) {
      // A deeply nested object would overflow JSON.stringify's stack; such a payload is refused.
      return valueDepthExceeds(payload) ? null : JSON.stringify(payload);
    }
    return null;
  }

  /** The session and raw text of a data event, or undefined after counting why it is dropped. */
  private forwardable(socket: Socket, state: SocketState, payload: unknown, role: Session['role']): { session: Session; raw: string } | undefined {
    const session = state.session;
    if (!session) return void this.drop(socket, state, 'unauthenticated');
    if (session.role !== role) return void this.drop(socket, state, 'wrong_role');
    const raw = IngestServer.raw(payload);
    if (raw === null) return void this.drop(socket, state, 'invalid_payload');
    if (raw.length > this.deps.config.MAX_PAYLOAD_BYTES) return void this.drop(socket, state, 'too_large');
    return { session, raw };
  }

  private obsData(socket: Socket, state: SocketState, payload: unknown): void {
    const ok = this.forwardable(socket, state, payload, 'observer');
    if (ok && !this.deps.hub.obs(ok.session.groupCode, ok.raw)) this.drop(socket, state, 'invalid_payload');
  }

  private auxData(socket: Socket, state: SocketState, payload: unknown): void {
    const ok = this.forwardable(socket, state, payload, 'auxiliary');
    if (!ok) return;
    const { session, raw } = ok;
    if (!this.deps.hub.aux(session.matchId, session.playerId, raw)) this.drop(socket, state, 'no_match');
  }

  /** A match ended or was removed: its sessions end and their sockets are closed. */
  endSessionsOf(groupCode: string, matchId: string): void {
    const stillLive = matchId ? (this.deps.hub.registry.groupsForMatchId(matchId)?.size ?? 0) > 0 : true;
    this.endSessions(this.sessions.filter((s) => (s.role === 'observer' && s.groupCode === groupCode) || (s.role === 'auxiliary' && !stillLive && s.matchId === matchId)));
  }

  /** Ends sessions: out of the table, and their sockets (if connected) closed. */
  private endSessions(sessions: Session[]): number {
    const ended = new Set(sessions);
    for (const [state, socket] of this.backlogged) {
      if (!state.session || !ended.has(state.session)) continue;
      // What an ended session still had waiting is not applied (the match is gone, or the secret it logged on with).
      const n = state.budget.clear();
      this.backlogged.delete(state);
      this.dropped.session_ended = (this.dropped.session_ended ?? 0) + n;
      if (!state.logged.has('session_ended')) {
        state.logged.add('session_ended');
        this.log.info({ socket: socket.id, reason: 'session_ended', count: n }, 'ingestion messages not applied: session ended');
      }
    }
    for (const session of sessions) {
      this.sessions.delete(session);
      const entry = session.socketId ? this.states.get(session.socketId) : undefined;
      if (entry) {
        entry.state.session = null;
        entry.socket.disconnect(true);
      }
    }
    return sessions.length;
  }

  /**
   * The group secret was rotated (POST /admin/matches/:groupCode/secret): every observer session of
   * the group authenticated with the old secret, so each ends (resumable ones too) and its socket
   * is closed. Auxiliary sessions need no secret and stay. Returns the number of sessions ended.
   */
  endObserverSessions(groupCode: string): number {
    return this.endSessions(this.sessions.filter((s) => s.role === 'observer' && s.groupCode === groupCode));
  }

  /** Shutdown: sockets close so that clients reconnect (to the restarted service); sessions stay resumable. */
  async close(): Promise<void> {
    this.shuttingDown = true;
    clearInterval(this.timer);
    clearInterval(this.idleTimer);
    clearInterval(this.beatTimer);
    if (this.drainTimer) clearTimeout(this.drainTimer);
    this.drainTimer = null;
    // What was received and still waits goes to the shards now: the clients will not send it again.
    for (const [state, socket] of this.backlogged) for (const item of state.budget.takeAll()) this.handle(socket, state, item.event, item.args);
    this.backlogged.clear();
    await this.io.close();
  }
}
