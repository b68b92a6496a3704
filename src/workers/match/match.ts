// The match engine: one Match per live group code. Pure: no I/O, no clock, no timers of its own.
// Time only comes from the `now` arguments (epoch ms, the service's receive time), so a replay with
// recorded timestamps is deterministic. Backend work is requested through effects (takeEffects()).
//
// Rules: docs/match-rules.md. This class is the engine's API; one file per concern does the work:
//   create.ts (creation, 2), dispatch.ts (message intake, 3), timers.ts, snapshot.ts,
//   tools.ts (tools merge, supporter rules), teams.ts, players.ts (roster), match-start.ts (4.5, MMR),
//   scoreboard.ts (rows, icon suffixes), killfeed.ts, rounds.ts (phases, records, side switch,
//   overtime, score, swaps, game end), spike.ts, timeouts.ts (team timeouts, tech pause),
//   toast.ts, aux.ts, playercams.ts, names.ts.

import { auxDisconnected, auxSessionRefusal } from './aux.js';
import { createCore } from './create.js';
import { acceptEnvelope } from './dispatch.js';
import { applyMmrResults } from './match-start.js';
import { acceptPlayercams } from './playercams.js';
import { applySchedule } from './schedule.js';
import type { ScheduledTeam } from '../../protocol/shard-messages.js';
import { coreFromSnapshot, coreToSnapshot, type SnapshotState } from './snapshot.js';
import { advanceTimers, nextTimerAt } from './timers.js';
import { raise } from './timeouts.js';
import { DEFAULT_SPONSOR_LOGO_URL } from './tools.js';
import type { ApplyResult, EngineCore, EngineEffect, EngineSettings, MatchLogon, MatchState } from './types.js';

export type {
  ApplyResult,
  AuthTeam,
  EngineEffect,
  EngineSettings,
  MatchLogon,
  MatchState,
  RejectReason,
} from './types.js';
export { DEFAULT_SPONSOR_LOGO_URL, auxSessionRefusal };

export class Match {
  readonly groupCode: string;
  readonly #core: EngineCore;

  private constructor(core: EngineCore) {
    this.#core = core;
    this.groupCode = core.state.groupCode;
  }

  /** A new match for a successful first `obs_logon` (docs/match-rules.md 2). */
  static create(logon: MatchLogon, now: number, settings: EngineSettings): Match {
    return new Match(createCore(logon, now, settings));
  }

  /**
   * A match from toSnapshot()'s text; `playercamSecret` as kept by the caller ('' = none). Throws
   * on a malformed snapshot.
   */
  static fromSnapshot(text: string, playercamSecret = ''): Match {
    return new Match(coreFromSnapshot(text, playercamSecret));
  }

  get matchId(): string {
    return this.#core.state.matchId;
  }

  /** Raised by every accepted message and every timer/async result that changes state (section 13). */
  get stateVersion(): number {
    return this.#core.stateVersion;
  }

  /** The `now` of the last stateVersion raise (creation time before any). */
  get lastChangeAt(): number {
    return this.#core.lastChangeAt;
  }

  /** When advance() next has work (epoch ms), or null when no timer is pending. */
  get nextTimerAt(): number | null {
    return nextTimerAt(this.#core);
  }

  get isRegistered(): boolean {
    return this.#core.state.isRegistered;
  }

  /** game_end was applied: send the final frame, then remove the match. */
  get ended(): boolean {
    return this.#core.ended;
  }

  /** For the shell's player-camera fetch only; never broadcast, never in effects. */
  get playercamSecret(): string {
    return this.#core.playercam.secret;
  }

  /**
   * One envelope of this match's observer (`obs_data`; a parsed object, or a JSON string). Every type
   * applies: the observer owns its match. `aux_*` records (replay files, docs/client-contract.md 3.1) need the
   * auxiliary envelope (`matchId`, `playerId`, which name nothing here: they apply to this match),
   * all others the observer envelope (`groupCode`); the caller has already routed it (the group
   * code check is the shell's). Runs the timers due by `now` first (also when the message is then
   * refused; the caller need not advance() before), validates everything before the message
   * changes anything, and raises stateVersion once per accepted message (also for unknown types,
   * which change nothing).
   */
  apply(envelope: unknown, now: number): ApplyResult {
    return acceptEnvelope(this.#core, envelope, now, null);
  }

  /**
   * One envelope of an auxiliary session (`aux_data`) whose player is `sessionPlayerId`: the only way
   * auxiliary-session data reaches a match. Only the auxiliary rules apply (auxSessionRefusal:
   * `not_aux_type`, `player_mismatch`); otherwise like apply(). The match id routing is the shell's.
   */
  applyAux(envelope: unknown, sessionPlayerId: string, now: number): ApplyResult {
    return acceptEnvelope(this.#core, envelope, now, sessionPlayerId);
  }

  /** Runs every timer due up to `now`, in time order (timeout end before a tick due at the same time). */
  advance(now: number): void {
    advanceTimers(this.#core, now);
  }

  /** An auxiliary socket with this player id disconnected (section 5). */
  auxDisconnected(playerId: string, now: number): void {
    this.advance(now);
    if (auxDisconnected(this.#core.state, playerId)) raise(this.#core, now);
  }

  /**
   * The player-camera service's answer (docs/interface.md 4.8; see playercams.ts for the accepted
   * forms). Returns false and changes nothing for an invalid answer.
   */
  applyPlayercams(result: unknown, now: number): boolean {
    if (this.#core.ended) return false;
    this.advance(now);
    if (!acceptPlayercams(this.#core, result)) return false;
    raise(this.#core, now);
    return true;
  }

  /**
   * The optional MMR lookup's answer `{results: [{puuid, currentMMRTier, peakMMRTier}]}` (4.5): each
   * result sets the tiers of the player with that id (numbers or null; other values are ignored).
   */
  applyMmr(result: unknown, now: number): boolean {
    if (this.#core.ended) return false;
    const results = (result as { results?: unknown } | null)?.results;
    if (!Array.isArray(results)) return false;
    this.advance(now);
    if (applyMmrResults(this.#core.state, results)) raise(this.#core, now);
    return true;
  }

  /**
   * The match is over without `game_end`: operator force-end, inactivity removal, shutdown without
   * STATE_DIR. Only `isRunning` becomes false, so that its last frame says it ended; nothing else
   * changes (no `game_end` phase, no round record, no post-match team info: docs/match-rules.md 14.2
   * belongs to `game_end`). Raises stateVersion when that changed anything.
   */
  stopRunning(now: number): void {
    const state = this.#core.state;
    if (!state.isRunning) return;
    state.isRunning = false;
    raise(this.#core, now);
  }

  /** The schedule's teams (left, right) and tool settings (docs/fixtures.md): names, logos, the series. */
  applySchedule(teams: readonly [ScheduledTeam, ScheduledTeam], tools: Record<string, unknown>, now: number): void {
    if (this.#core.ended) return;
    this.advance(now);
    if (applySchedule(this.#core.state, teams, tools)) raise(this.#core, now);
  }

  /** The register call completed (any HTTP status): true. A network failure leaves it false. */
  setRegistered(registered: boolean): void {
    const state = this.#core.state;
    if (state.isRegistered === registered) return;
    state.isRegistered = registered;
    raise(this.#core, this.#core.lastChangeAt);
  }

  /** Effects requested since the last call, in order. Plain JSON data. */
  takeEffects(): EngineEffect[] {
    const effects = this.#core.effects;
    if (effects.length === 0) return [];
    this.#core.effects = [];
    return effects;
  }

  /**
   * The broadcast tree (match_data). A live view, not a copy: serialize it (serializeMatch or
   * JSON.stringify) before the next call that changes the match, and never mutate it (the wire
   * serializer reuses subtree texts until the engine's rules mark them changed, dirty.ts). It holds no
   * internal members and no secrets; unset optional members are `undefined` (omitted by both
   * serializers).
   */
  liveState(): MatchState {
    return this.#core.state;
  }

  /**
   * Body of the backend register/update/complete calls (docs/interface.md 4.8): `{match: record}`, where
   * the record is the broadcast tree plus the logon's `leftTeam`/`rightTeam` and
   * `tools.playercamsInfo.endTime`; without stateVersion, timers, the group secret (never held here)
   * and the player-camera secret. A fresh top level over shared subtrees: serialize it at once.
   */
  registerBody(): { match: Record<string, unknown> } {
    const core = this.#core;
    const s = core.state;
    const cams: Record<string, unknown> = { ...s.tools.playercamsInfo };
    if (core.playercam.endTime !== undefined) cams.endTime = core.playercam.endTime;
    return {
      match: {
        ...s,
        tools: { ...s.tools, playercamsInfo: cams },
        leftTeam: core.logonTeams.leftTeam,
        rightTeam: core.logonTeams.rightTeam,
      },
    };
  }

  /**
   * Everything the match owns as JSON text, for crash recovery and STATE_DIR (fromSnapshot).
   * Without the player-camera secret: the caller keeps it apart (never on disk). Pending effects
   * are not included (the shard drains them after every call). `state`: liveState()'s JSON text, or
   * a frame's string literal (snapshot.ts), when the caller has it (the shard: from the latest
   * frame), else it is made here.
   */
  toSnapshot(state?: string | SnapshotState): string {
    return coreToSnapshot(this.#core, typeof state === 'string' ? { json: state } : state);
  }
}
