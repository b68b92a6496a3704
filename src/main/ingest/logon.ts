// The two logons of the ingestion listener (docs/client-contract.md 2.3, 4.2). An observer logon with a valid
// key opens its group code: a new match (its secret given once), or, for a live one, a reconnection
// with the match's secret. An auxiliary logon names a live game match id and a player on its roster,
// at most one live session per player; it needs no key (docs/reliability.md, auxiliary trust).
import semver from 'semver';
import type { KeyValidator } from '../backend/index.js';
import { clientAddress } from '../base/client-address.js';
import type { Config } from '../base/config.js';
import { sessionPid } from '../internals/socketio.js';
import type { Logger } from '../base/log.js';
import { keyIdOf, type NewSession, secretMatches, type SessionStore } from '../sessions/index.js';
import type { MatchDirectory, MatchLifecycle } from '../matches/index.js';
import { whenReady } from '../base/awaitable.js';
import type { StandbyAdmission } from '../standby/index.js';
import type { FixtureKeeper } from '../schedule/index.js';
import { valueDepthExceeds } from '../../protocol/json-depth.js';
import { isAuxLogon, isObsLogon } from '../../schemas/checks.js';
import { parsePayload } from '../sockets/io-server.js';
import { SERVICE_VERSION } from '../base/version.js';
import type { IngestCounters, SocketReplies, SocketState } from './socket-state.js';

export interface LogonDeps {
  config: Config;
  log: Logger;
  keys: KeyValidator;
  directory: MatchDirectory;
  lifecycle: MatchLifecycle;
  sessions: SessionStore;
  replies: SocketReplies;
  counters: IngestCounters;
  /** Scale-out: whether Redis is reachable (a logon needs the shared directory and session table). */
  sharedStoreUp: () => boolean;
  /** The standby observers (standby/admission.ts); unset: a second observer needs the group secret. */
  standby?: StandbyAdmission;
  /** The schedule (schedule/keeper.ts, docs/fixtures.md): refuses or rewrites a logon to a scheduled code. */
  schedule?: Pick<FixtureKeeper, 'plan' | 'started'>;
  /** A socket of this listener took an observer seat (the standby relay learns it is open). */
  seatOpened?: (groupCode: string, seat: 'group' | 'standby', reconnected: boolean) => void;
}

/** The ack reason of a logon refused while the shared store (Redis) is unreachable (README, "Running several nodes"). */
export const STORE_UNREACHABLE = 'The server cannot reach its shared store right now. Try again in a moment.';

export class Logons {
  constructor(private readonly deps: LogonDeps) {}

  async observer(state: SocketState, payload: unknown): Promise<void> {
    const { replies, log } = this.deps;
    const { socket } = state;
    if (state.session || state.logonPending) return replies.drop(state, 'repeated_logon'); // check 0
    if (this.payloadTooLarge(payload)) {
      log.info({ socket: socket.id }, 'observer logon refused: payload too large');
      return replies.fail(socket, 'obs_logon_ack', 'authenticate', 'Invalid packet.');
    }
    const parsed = parsePayload(payload);
    if (!parsed.ok || valueDepthExceeds(parsed.value) || !isObsLogon(parsed.value)) {
      log.info({ socket: socket.id }, 'observer logon refused: invalid packet');
      return replies.fail(socket, 'obs_logon_ack', 'authenticate', 'Invalid packet.');
    }
    const packet = parsed.value;
    const versionProblem = this.versionProblem(packet.clientVersion);
    if (versionProblem) {
      log.info({ socket: socket.id, clientVersion: String(packet.clientVersion) }, 'observer logon refused: version');
      return replies.fail(socket, 'obs_logon_ack', 'authenticate', versionProblem);
    }
    if (!this.deps.sharedStoreUp()) {
      log.warn({ socket: socket.id, groupCode: packet.groupCode }, 'observer logon refused: shared store (Redis) unreachable');
      return replies.fail(socket, 'obs_logon_ack', 'authenticate', STORE_UNREACHABLE);
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
      log.info({ socket: socket.id, groupCode: packet.groupCode, reason: validity.reason }, 'observer logon refused: key');
      return replies.fail(socket, 'obs_logon_ack', 'authenticate', validity.message);
    }
    let opening;
    let scheduled;
    try {
      // A scheduled code: the fixture's teams and series, or a refusal (docs/fixtures.md).
      scheduled = await this.deps.schedule?.plan(packet, validity.organizationId ?? '');
      if (!socket.connected) return;
      if (scheduled?.kind === 'refused') {
        log.info({ socket: socket.id, groupCode: packet.groupCode, reason: scheduled.reason }, 'observer logon refused: schedule');
        return replies.fail(socket, 'obs_logon_ack', 'authenticate', scheduled.reason);
      }
      opening = await this.deps.lifecycle.open(scheduled?.kind === 'scheduled' ? scheduled.packet : packet, validity, keyIdOf(packet.key, validity.organizationId));
      if (opening.kind === 'created' && scheduled?.kind === 'scheduled') this.deps.schedule?.started(packet.groupCode, scheduled.live, { left: packet.leftTeam.name, right: packet.rightTeam.name });
    } catch (err) {
      // Only a shared directory can fail here (Redis went away between the check above and the claim).
      log.warn({ socket: socket.id, groupCode: packet.groupCode, error: (err as Error).message }, 'observer logon refused: shared store (Redis) unreachable');
      return replies.fail(socket, 'obs_logon_ack', 'authenticate', STORE_UNREACHABLE);
    }
    let reason: string;
    let standby = false;
    if (opening.kind === 'live') {
      if (secretMatches(opening.match.secretDigest, packet.groupSecret)) {
        reason = 'reconnected';
      } else {
        // The standby seat: its own secret, or an armed window (standby/admission.ts).
        let seat;
        try {
          seat = await this.deps.standby?.logon(opening.match, packet.groupSecret, keyIdOf(packet.key, validity.organizationId));
        } catch (err) {
          log.warn({ socket: socket.id, groupCode: packet.groupCode, error: (err as Error).message }, 'observer logon refused: shared store (Redis) unreachable');
          return replies.fail(socket, 'obs_logon_ack', 'authenticate', STORE_UNREACHABLE);
        }
        if (!seat) {
          log.info({ socket: socket.id, groupCode: packet.groupCode }, 'observer logon refused: match live, wrong secret');
          return replies.fail(socket, 'obs_logon_ack', 'authenticate', `Game with Group Code ${packet.groupCode} exists and is still live.`);
        }
        if (!socket.connected) return;
        reason = seat.reason;
        standby = true;
      }
    } else if (opening.kind === 'refused') {
      this.deps.counters.closed.capacity++;
      log.warn({ socket: socket.id, groupCode: packet.groupCode, liveMatches: this.deps.directory.count() }, 'observer logon refused: capacity');
      return replies.fail(socket, 'obs_logon_ack', 'authenticate', opening.reason);
    } else {
      reason = opening.secret;
      this.deps.standby?.fresh(packet.groupCode); // nothing of an earlier match of this code carries over
    }
    const session: NewSession = {
      id: this.sessionId(state), role: 'observer', groupCode: packet.groupCode,
      obsName: typeof packet.obsName === 'string' ? packet.obsName : '', matchId: '', playerId: '', socketId: socket.id,
      ...(standby ? { seat: 'standby' as const } : {}),
    };
    this.deps.sessions.put(session);
    this.deps.seatOpened?.(packet.groupCode, standby ? 'standby' : 'group', reason === 'reconnected');
    replies.bind(state, session);
    replies.emit(socket, 'obs_logon_ack', JSON.stringify({ type: 'authenticate', value: true, reason }));
    log.info({ socket: socket.id, groupCode: packet.groupCode, reconnected: reason === 'reconnected' || standby, standby, client: this.clientOf(state) }, 'observer logged on');
  }

  auxiliary(state: SocketState, payload: unknown): void {
    const { replies, log, directory } = this.deps;
    const { socket } = state;
    if (state.session || state.logonPending) return replies.drop(state, 'repeated_logon');
    if (!this.deps.config.AUX_CLIENTS_ENABLED) {
      log.info({ socket: socket.id }, 'auxiliary logon refused: auxiliary clients are disabled');
      return replies.fail(socket, 'aux_logon_ack', 'aux_authenticate', 'Auxiliary clients are disabled on this server.');
    }
    if (this.payloadTooLarge(payload)) return replies.fail(socket, 'aux_logon_ack', 'aux_authenticate', 'Invalid packet.');
    if (!this.deps.sharedStoreUp()) {
      log.warn({ socket: socket.id }, 'auxiliary logon refused: shared store (Redis) unreachable');
      return replies.fail(socket, 'aux_logon_ack', 'aux_authenticate', STORE_UNREACHABLE);
    }
    const parsed = parsePayload(payload);
    if (!parsed.ok || !isAuxLogon(parsed.value)) return replies.fail(socket, 'aux_logon_ack', 'aux_authenticate', 'Invalid packet.');
    const packet = parsed.value;
    const versionProblem = this.versionProblem(packet.clientVersion);
    if (versionProblem) return replies.fail(socket, 'aux_logon_ack', 'aux_authenticate', versionProblem);
    const matchId = typeof packet.matchId === 'string' ? packet.matchId : '';
    const playerId = typeof packet.playerId === 'string' ? packet.playerId : '';
    if (!matchId || !directory.groupsForMatchId(matchId)?.size) {
      return replies.fail(socket, 'aux_logon_ack', 'aux_authenticate', `Game with Match ID ${matchId} not found.`);
    }
    // No key, and matchId and player ids are public in every frame: an auxiliary session is a player
    // of the game's roster (the real client sends its own id, docs/client-contract.md 4.2), so there is at most
    // one per player (below) and none for an id the game does not know (docs/reliability.md).
    if (!directory.hasPlayer(matchId, playerId)) {
      log.info({ socket: socket.id, matchId, playerId }, 'auxiliary logon refused: player not on the roster');
      return replies.fail(socket, 'aux_logon_ack', 'aux_authenticate', `Player ${playerId} is not on the roster of the game with Match ID ${matchId}.`);
    }
    const session: NewSession = { id: this.sessionId(state), role: 'auxiliary', groupCode: '', obsName: '', matchId, playerId, socketId: socket.id };
    // One live auxiliary session per player: checked and kept in one step.
    whenReady(this.deps.sessions.putAuxiliary(session), (kept) => {
      if (!kept) {
        log.warn({ socket: socket.id, matchId, playerId }, 'auxiliary logon refused: player already has a live session');
        return replies.fail(socket, 'aux_logon_ack', 'aux_authenticate', `Player ${playerId} already has an auxiliary session for match ${matchId}.`);
      }
      replies.bind(state, session);
      replies.emit(socket, 'aux_logon_ack', JSON.stringify({ type: 'aux_authenticate', value: true, reason: '' }));
      log.info({ socket: socket.id, matchId, playerId, client: this.clientOf(state) }, 'auxiliary client logged on');
    }, (err) => {
      // The store did not answer: not "the player has a session" (refused with a reason, not left without an ack).
      log.warn({ socket: socket.id, matchId, playerId, error: (err as Error)?.message }, 'auxiliary logon refused: shared store (Redis) unreachable');
      replies.fail(socket, 'aux_logon_ack', 'aux_authenticate', STORE_UNREACHABLE);
    });
  }

  /** The session id: the pid socket.io issued to the socket (its id without recovery). */
  private sessionId(state: SocketState): string {
    return sessionPid(state.socket) ?? state.socket.id;
  }

  private versionProblem(version: unknown): string | null {
    const ok = typeof version === 'string' && semver.valid(version) !== null && semver.satisfies(version, this.deps.config.COMPATIBLE_CLIENT_RANGE);
    return ok ? null : `Client version ${typeof version === 'string' ? version : 'undefined'} is not compatible with server version ${SERVICE_VERSION}.`;
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

  /** The client's address for logs (the forwarded one with TRUST_PROXY=true). */
  private clientOf(state: SocketState): string {
    const h = state.socket.handshake;
    return clientAddress(this.deps.config.TRUST_PROXY, h.address, h.headers['x-forwarded-for'], h.headers['x-real-ip']);
  }
}
