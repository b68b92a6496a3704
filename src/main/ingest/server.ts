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
import { secretMatches } from '../matches/registry.js';
import { IngestAdapter } from '../sockets/adapters.js';
import { createIoServer, parsePayload } from '../sockets/io-server.js';
import type { TemplatedApp } from '../uws.js';
import { SERVICE_VERSION } from '../version.js';
import { isAuxLogon, isObsLogon } from '../../schemas/logon.js';
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

interface SocketState {
  session: Session | null;
  logonPending: boolean;
  /** Drop kinds already logged for this socket: each is logged once, then only counted. */
  logged: Set<string>;
}

export class IngestServer {
  readonly io: Server;
  readonly sessions: SessionTable;
  readonly dropped: Record<string, number> = {};
  private readonly log: Logger;
  private readonly states = new Map<string, { socket: Socket; state: SocketState }>();
  private readonly timer: NodeJS.Timeout;

  constructor(app: TemplatedApp, private readonly deps: IngestDeps) {
    this.log = deps.log.child({ module: 'ingest' });
    this.sessions = new SessionTable(deps.config.RECOVERY_WINDOW_MS);
    this.io = createIoServer(app, deps.config, { adapter: IngestAdapter, recovery: true, maxBackpressure: 1024 * 1024 });
    this.io.on('connection', (socket) => this.onConnection(socket));
    // An auxiliary session without a player id learns it here, from its own first aux_scoreboard
    // (auxData): the shard's aux_player event does not say which session sent the row, so it must
    // not be applied to every session of the match that has no player id yet.
    // Keepalive keeps each client's recovery offset fresh (clients.md 1.5 item 4); sweep expired sessions.
    this.timer = setInterval(() => {
      const payload = JSON.stringify({ t: Date.now() });
      for (const { socket, state } of this.states.values()) if (state.session) socket.emit('service_keepalive', payload);
      this.sessions.sweep(Date.now());
    }, KEEPALIVE_MS);
    this.timer.unref();
  }

  private onConnection(socket: Socket): void {
    // Every handler is bound synchronously: the client flushes buffered emits right after CONNECT.
    const state: SocketState = { session: null, logonPending: false, logged: new Set() };
    this.states.set(socket.id, { socket, state });
    const pid = (socket as unknown as { pid?: string }).pid ?? '';
    const now = Date.now();

    if (socket.recovered) {
      const session = this.sessions.resumable(pid, now);
      if (session) this.resume(socket, state, session, pid);
    } else {
      const previousPid = (socket.handshake.auth as { pid?: unknown } | undefined)?.pid;
      const session = this.sessions.resumable(previousPid, now);
      if (session) this.resume(socket, state, session, pid);
    }

    socket.on('obs_logon', (payload: unknown) => void this.obsLogon(socket, state, payload));
    socket.on('aux_logon', (payload: unknown) => this.auxLogon(socket, state, payload));
    socket.on('obs_data', (payload: unknown) => this.obsData(socket, state, payload));
    socket.on('aux_data', (payload: unknown) => this.auxData(socket, state, payload));
    socket.on('disconnect', () => {
      this.states.delete(socket.id);
      const session = state.session;
      if (!session) return;
      this.sessions.disconnected(session, socket.id, Date.now());
      if (session.role === 'auxiliary' && session.playerId && session.socketId === null) this.deps.hub.auxDisconnected(session.matchId, session.playerId);
    });
    if (this.deps.testHooks) socket.on('test_echo', (payload: unknown) => socket.emit('test_echo', payload));
  }

  /** A reconnecting socket takes over its session; an old socket still open is closed. */
  private resume(socket: Socket, state: SocketState, session: Session, newPid: string): void {
    const oldSocketId = session.socketId;
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
    this.log.info({ socket: socket.id, role: session.role, groupCode: session.groupCode, matchId: session.matchId, recovered: socket.recovered }, 'session resumed');
  }

  private fail(socket: Socket, event: 'obs_logon_ack' | 'aux_logon_ack', type: string, reason: string): void {
    socket.emit(event, JSON.stringify({ type, value: false, reason }));
    socket.disconnect(true);
  }

  private versionProblem(version: unknown): string | null {
    const ok = typeof version === 'string' && semver.valid(version) !== null && semver.satisfies(version, this.deps.config.COMPATIBLE_CLIENT_RANGE);
    return ok ? null : `Client version ${typeof version === 'string' ? version : 'undefined'} is not compatible with server version ${SERVICE_VERSION}.`;
  }

  private async obsLogon(socket: Socket, state: SocketState, payload: unknown): Promise<void> {
    if (state.session || state.logonPending) return; // check 0
    const parsed = parsePayload(payload);
    if (!parsed.ok || !isObsLogon(parsed.value)) {
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
      if (!secretMatches(live, packet.groupSecret)) {
        this.log.info({ socket: socket.id, groupCode: packet.groupCode }, 'observer logon refused: match live, wrong secret');
        return this.fail(socket, 'obs_logon_ack', 'authenticate', `Game with Group Code ${packet.groupCode} exists and is still live.`);
      }
      reason = 'reconnected';
    } else {
      reason = this.deps.hub.create(packet, validity);
    }
    const session: Session = {
      role: 'observer', pid: (socket as unknown as { pid?: string }).pid ?? socket.id, groupCode: packet.groupCode,
      obsName: typeof packet.obsName === 'string' ? packet.obsName : '', matchId: '', playerId: '', socketId: socket.id, disconnectedAt: null,
    };
    this.bind(socket, state, session);
    socket.emit('obs_logon_ack', JSON.stringify({ type: 'authenticate', value: true, reason }));
    this.log.info({ socket: socket.id, groupCode: packet.groupCode, reconnected: reason === 'reconnected', client: this.clientOf(socket) }, 'observer logged on');
  }

  private auxLogon(socket: Socket, state: SocketState, payload: unknown): void {
    if (state.session || state.logonPending) return;
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
    // matchId and player ids are public in every frame: one live auxiliary session per player.
    if (playerId && this.sessions.filter((s) => s.role === 'auxiliary' && s.matchId === matchId && s.playerId === playerId && s.socketId !== null).length > 0) {
      this.log.warn({ socket: socket.id, matchId, playerId }, 'auxiliary logon refused: player already has a live session');
      return this.fail(socket, 'aux_logon_ack', 'aux_authenticate', `Player ${playerId} already has an auxiliary session for match ${matchId}.`);
    }
    const session: Session = {
      role: 'auxiliary', pid: (socket as unknown as { pid?: string }).pid ?? socket.id, groupCode: '', obsName: '',
      matchId, playerId, socketId: socket.id, disconnectedAt: null,
    };
    this.bind(socket, state, session);
    socket.emit('aux_logon_ack', JSON.stringify({ type: 'aux_authenticate', value: true, reason: '' }));
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

  /** The raw JSON text to forward: strings as received, plain objects re-encoded once. */
  private static raw(payload: unknown): string | null {
    if (typeof payload === 'string') return payload;
    if (payload !== null && typeof payload === 'object' && !Array.isArray(payload) && !Buffer.isBuffer(payload)) return JSON.stringify(payload);
    return null;
  }

  /** The envelope playerId of an aux_scoreboard for this match id (clients.md 4.3), else undefined. */
  private static auxScoreboardSender(payload: unknown, matchId: string): string | undefined {
    if (typeof payload === 'string' && !payload.includes('aux_scoreboard')) return undefined;
    const parsed = parsePayload(payload);
    if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object') return undefined;
    const env = parsed.value as { type?: unknown; matchId?: unknown; playerId?: unknown };
    if (env.type !== 'aux_scoreboard' || env.matchId !== matchId || typeof env.playerId !== 'string' || env.playerId === '') return undefined;
    return env.playerId;
  }

  private obsData(socket: Socket, state: SocketState, payload: unknown): void {
    const session = state.session;
    if (!session) return this.drop(socket, state, 'unauthenticated');
    if (session.role !== 'observer') return this.drop(socket, state, 'wrong_role');
    const raw = IngestServer.raw(payload);
    if (raw === null) return this.drop(socket, state, 'invalid_payload');
    this.deps.hub.obs(session.groupCode, raw);
  }

  private auxData(socket: Socket, state: SocketState, payload: unknown): void {
    const session = state.session;
    if (!session) return this.drop(socket, state, 'unauthenticated');
    if (session.role !== 'auxiliary') return this.drop(socket, state, 'wrong_role');
    const raw = IngestServer.raw(payload);
    if (raw === null) return this.drop(socket, state, 'invalid_payload');
    if (session.playerId === '') {
      const learned = IngestServer.auxScoreboardSender(payload, session.matchId);
      if (learned) {
        session.playerId = learned;
        (socket.data as { playerId?: string }).playerId = learned;
      }
    }
    if (!this.deps.hub.aux(session.matchId, session.playerId, raw)) this.drop(socket, state, 'no_match');
  }

  /** A match ended or was removed: its sessions end and their sockets are closed. */
  endSessionsOf(groupCode: string, matchId: string): void {
    const stillLive = matchId ? (this.deps.hub.registry.groupsForMatchId(matchId)?.size ?? 0) > 0 : true;
    const ended = this.sessions.filter((s) => (s.role === 'observer' && s.groupCode === groupCode) || (s.role === 'auxiliary' && !stillLive && s.matchId === matchId));
    for (const session of ended) {
      this.sessions.delete(session);
      const entry = session.socketId ? this.states.get(session.socketId) : undefined;
      if (entry) {
        entry.state.session = null;
        entry.socket.disconnect(true);
      }
    }
  }

  /**
   * The group secret was rotated (POST /admin/matches/:groupCode/secret): every observer session of
   * the group authenticated with the old secret, so each ends (resumable ones too) and its socket
   * is closed. Auxiliary sessions need no secret and stay. Returns the number of sessions ended.
   */
  endObserverSessions(groupCode: string): number {
    const ended = this.sessions.filter((s) => s.role === 'observer' && s.groupCode === groupCode);
    for (const session of ended) {
      this.sessions.delete(session);
      const entry = session.socketId ? this.states.get(session.socketId) : undefined;
      if (entry) {
        entry.state.session = null;
        entry.socket.disconnect(true);
      }
    }
    return ended.length;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.io.close();
  }
}
