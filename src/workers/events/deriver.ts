// Match events from the engine's state (docs/events.md): after each change of a match the shard
// calls observe(), which compares the state with what this match's deriver last saw (phase, round,
// score, map, agents, spike, timeouts, running, ended) and emits an event per difference; a few
// messages carry what the state does not keep (a kill's weapon and assists, the planter), and
// message() reads them from the envelope. A round's end is settled when the clock passes it (timeReached())
// (round-end.ts). Cheap per message: a few comparisons, the roster only at phase changes and round
// ends. Nothing here is sent while the shard is muted (output-buffer.ts). What a restore cannot read back
// from the state is journaled with the match's snapshot (journal()).
import type { DerivedEvent, MatchEventType, TeamId } from '../../protocol/match-events.js';
import type { KillfeedData } from '../../schemas/messages.js';
import { assistCodename, weaponDisplay } from '../match/names.js';
import type { MatchState, PlayerState } from '../match/types.js';
import { findByName, matchLines, multiKills, playerRef, roundLines, score, teamRef, teams } from './refs.js';
import { ROUND_SETTLE_MS, roundMovedOn, winMethod, type PendingEnd } from './round-end.js';
import { RoundTracker, type TrackerJournal } from './round-tracker.js';

/** The removal reasons of a match (shard context), as a match_ended event gives them. */
export type EndReason = 'completed' | 'inactive' | 'admin' | 'shutdown';

/** What a restored deriver cannot read back from the state (snapshots.ts keeps it beside the match). */
export interface DeriverJournal {
  end: PendingEnd | null;
  round: TrackerJournal;
  /** Agent picks not emitted yet (playerIds) and their time. */
  picks: string[];
  picksAt: number;
}

export class MatchEventDeriver {
  private running = false;
  private map = '';
  private phase = '';
  private round = 0;
  private score0 = 0;
  private score1 = 0;
  private planted = false;
  private defused = false;
  private detonated = false;
  private timeoutLeft = false;
  private timeoutRight = false;
  private techPause = false;
  private ended = false;
  /** playerId → agent codename last reported locked. */
  private readonly agents = new Map<string, string>();
  private readonly tracker = new RoundTracker();
  /** The round whose score changed, until it is settled (round-end.ts). */
  private pendingEnd: PendingEnd | null = null;
  /** Agent picks of the millisecond `picksAt` (playerIds), emitted in roster order once it is over (timeReached()). */
  private picks: string[] = [];
  private picksAt = 0;
  /** Events not taken yet; the state version of the change they belong to, and the next index in it. */
  private pending: DerivedEvent[] = [];
  private stateVersion = -1;
  private index = 0;

  /**
   * `restored`: rebuilt from a snapshot; its present state is what was seen (nothing is emitted for
   * it), with what `journal` (journal() when the snapshot was taken; none in an older version's) kept.
   */
  constructor(state: MatchState, stateVersion: number, now: number, restored: boolean, journal?: DeriverJournal) {
    this.begin(stateVersion);
    if (restored) {
      this.see(state);
      this.ended = !state.isRunning && state.roundPhase === 'game_end';
      for (const t of state.teams) for (const p of t.players) if (p.locked) this.agents.set(p.riotId, p.agentInternal);
      this.tracker.resume(state, journal?.round);
      this.pendingEnd = journal?.end ?? null;
      this.picks = journal?.picks ?? [];
      this.picksAt = journal?.picksAt ?? 0;
    } else {
      this.emit('match_created', now, state, { teams: teams(state), map: state.map });
      this.see(state); // the engine's initial values (map "Loading", …) are no change
    }
  }

  /** The events derived since the last take, in order. */
  take(): DerivedEvent[] {
    const out = this.pending;
    if (out.length) this.pending = [];
    return out;
  }

  /** What a restore needs beside the state (plain JSON), as of the last change observed. */
  journal(): DeriverJournal {
    return { end: this.pendingEnd, round: this.tracker.toJournal(), picks: this.picks, picksAt: this.picksAt };
  }

  /**
   * The match's clock reached `at`: a message at `at` is about to be applied, or (live clock) a cycle
   * ran. A round whose score changed more than ROUND_SETTLE_MS before is settled, from the state the
   * earlier messages left (round-end.ts), and the agent picks of an earlier millisecond go out.
   * `stateVersion`: the match's now; the events are numbered with the next one, before any later
   * change's (also after a restore, whose first change may have had events already).
   */
  timeReached(state: MatchState, stateVersion: number, at: number): void {
    const end = this.pendingEnd;
    const picks = this.picks.length > 0 && at > this.picksAt;
    const settle = end !== null && at - end.at > ROUND_SETTLE_MS;
    if (!picks && !settle) return;
    this.begin(stateVersion + 1);
    if (picks) this.emitPicks(state);
    if (settle) this.settle(state);
  }

  /** When timeReached() next has work (epoch ms, the match's clock), or null. */
  get dueAt(): number | null {
    const end = this.pendingEnd ? this.pendingEnd.at + ROUND_SETTLE_MS + 1 : Infinity;
    const due = Math.min(end, this.picks.length > 0 ? this.picksAt + 1 : Infinity);
    return due === Infinity ? null : due;
  }

  /**
   * Events of the change that raised the match's state version to `stateVersion` are numbered from
   * stateVersion × 64. Never backwards: events numbered ahead (timeReached()) are followed by the
   * next ones of that number, so the order only grows (the journal keeps only higher ones).
   */
  private begin(stateVersion: number): void {
    if (stateVersion <= this.stateVersion) return;
    this.stateVersion = stateVersion;
    this.index = 0;
  }

  /** An accepted message with what the state does not keep. Called before observe() for the same change. */
  message(state: MatchState, stateVersion: number, type: string, data: unknown, at: number): void {
    this.begin(stateVersion);
    if (type === 'killfeed') this.kill(state, data as KillfeedData, at);
    else if (type === 'scoreboard' || type === 'aux_scoreboard' || type === 'aux_scoreboard_team') this.spikeSeen(state);
    else if (type === 'spike_planted' && !this.planted && state.spikeState.planted) { // the engine takes a plant in combat only
      const planter = this.carrier(state);
      this.planted = true;
      this.emit('spike_planted', at, state, { planter });
    } else if (type === 'match_start' && !this.running) {
      this.running = state.isRunning;
      this.emit('match_started', at, state, { matchId: state.matchId, teams: teams(state), map: state.map });
    }
  }

  /** The match changed: an event for each difference from what was seen. */
  observe(state: MatchState, stateVersion: number, at: number): void {
    this.begin(stateVersion);
    if (state.map !== this.map && state.map !== '') this.emit('map_selected', at, state, { map: state.map });
    this.agentPicks(state, at);
    if (this.picks.length > 0 && state.isRunning) this.emitPicks(state);
    if (this.pendingEnd && roundMovedOn(state, this.pendingEnd)) this.settle(state);
    if (state.isRunning && !this.running && state.matchId) this.emit('match_started', at, state, { matchId: state.matchId, teams: teams(state), map: state.map });
    if (state.roundPhase === 'shopping' && (state.roundNumber !== this.round || this.phase !== 'shopping')) {
      this.tracker.reset(state);
      this.emit('round_started', at, state, { round: state.roundNumber });
    }
    const spike = state.spikeState;
    if (spike.planted && !this.planted) this.emit('spike_planted', at, state, { planter: this.carrier(state) });
    if (spike.defused && !this.defused) this.emit('spike_defused', at, state, { defuser: this.defuser(state) });
    if (spike.detonated && !this.detonated) this.emit('spike_detonated', at, state, {});
    if (this.phase === 'shopping' && state.roundPhase !== 'shopping') this.tracker.buyPhaseEnded(state);
    this.scoreChange(state, at);
    this.timeouts(state, at);
    if (state.roundPhase === 'game_end' && !state.isRunning && !this.ended) this.end(state, at, 'completed');
    this.see(state);
  }

  /** The match is removed without game_end (force-end, inactivity, shutdown without STATE_DIR). */
  removed(state: MatchState, stateVersion: number, at: number, reason: EndReason): void {
    if (this.ended) return;
    this.begin(stateVersion);
    this.index = Math.max(this.index, 63 - this.picks.length - (this.pendingEnd ? 2 : 0)); // after anything derived from the same change
    if (this.picks.length > 0) this.emitPicks(state);
    if (this.pendingEnd) this.settle(state);
    this.end(state, at, reason);
  }

  private see(state: MatchState): void {
    this.running = state.isRunning;
    this.map = state.map;
    this.phase = state.roundPhase;
    this.round = state.roundNumber;
    this.planted = state.spikeState.planted;
    this.defused = state.spikeState.defused;
    this.detonated = state.spikeState.detonated;
    const s = score(state);
    this.score0 = s.team_0;
    this.score1 = s.team_1;
    const ts = state.timeoutState;
    this.timeoutLeft = ts.leftTeam;
    this.timeoutRight = ts.rightTeam;
    this.techPause = ts.techPause;
  }

  private emit(type: MatchEventType, at: number, state: MatchState, data: Record<string, unknown>, round = state.roundNumber): void {
    this.pending.push({ type, at, round, order: this.stateVersion * 64 + Math.min(63, this.index++), data });
  }

  /** Locked agents that changed: held until their millisecond is over (timeReached()), then emitted in roster order. */
  private agentPicks(state: MatchState, at: number): void {
    if (state.isRunning) return;
    for (const t of state.teams) {
      for (const p of t.players) {
        if (!p.locked || this.agents.get(p.riotId) === p.agentInternal) continue;
        this.agents.set(p.riotId, p.agentInternal);
        if (this.picks.length > 0 && at !== this.picksAt) this.emitPicks(state);
        if (!this.picks.includes(p.riotId)) this.picks.push(p.riotId);
        this.picksAt = at;
      }
    }
  }

  private emitPicks(state: MatchState): void {
    const at = this.picksAt;
    const picked = new Set(this.picks);
    this.picks = [];
    for (const t of [...state.teams].sort((a, b) => a.ingameTeamId - b.ingameTeamId)) {
      for (const p of [...t.players].sort((a, b) => a.position - b.position)) {
        if (picked.has(p.riotId)) this.emit('agent_selected', at, state, { player: playerRef(state, p, t.ingameTeamId) });
      }
    }
  }

  /** A scoreboard row came: the attacker it shows holding the spike is the planter-to-be. */
  private spikeSeen(state: MatchState): void {
    for (const t of state.teams) {
      if (!t.isAttacking) continue;
      for (const p of t.players) if (p.hasSpike) this.tracker.spikeHolder = p.name;
    }
  }

  /** A team's count rose: its round's end is opened, settled later (round-end.ts). */
  private scoreChange(state: MatchState, at: number): void {
    const s = score(state);
    const won: TeamId | null = s.team_0 > this.score0 ? 0 : s.team_1 > this.score1 ? 1 : null;
    if (won === null) return;
    if (this.pendingEnd) this.settle(state); // a second score before the first settled: that round is over
    const team = state.teams[0].ingameTeamId === won ? state.teams[0] : state.teams[1];
    this.pendingEnd = { round: state.roundNumber, at, winner: won, side: team.isAttacking ? 'attack' : 'defense', score: s };
  }

  /** The pending round's `round_ended` (and `clutch`), at the score change's time, from everything its messages said. */
  private settle(state: MatchState): void {
    const end = this.pendingEnd!;
    this.pendingEnd = null;
    const team = state.teams[0].ingameTeamId === end.winner ? state.teams[0] : state.teams[1];
    const tracker = this.tracker;
    this.emit('round_ended', end.at, state, {
      round: end.round, winner: { ...teamRef(state, team), side: end.side }, method: winMethod(state, end), score: end.score,
      players: roundLines(state, (p) => tracker.spentBy(p)),
      // Each player's multi-kill of the round as it ended: the highest of its multi_kill events (docs/events.md).
      multiKills: multiKills(state, (name) => tracker.kills.get(name) ?? 0),
    }, end.round);
    const clutch = tracker.clutch[end.winner];
    if (clutch && tracker.alive.get(clutch.player.name) !== false) {
      this.emit('clutch', end.at, state, { player: playerRef(state, clutch.player, end.winner), against: clutch.against }, end.round);
    }
  }

  private timeouts(state: MatchState, at: number): void {
    const ts = state.timeoutState;
    for (const [side, now, was] of [['left', ts.leftTeam, this.timeoutLeft], ['right', ts.rightTeam, this.timeoutRight]] as const) {
      if (now === was) continue;
      const team = teamRef(state, side === 'left' ? state.teams[0] : state.teams[1]);
      this.emit(now ? 'timeout_called' : 'timeout_ended', at, state, now ? { team, duration: state.tools.timeoutDuration } : { team });
    }
    if (ts.techPause !== this.techPause) this.emit(ts.techPause ? 'tech_pause_started' : 'tech_pause_ended', at, state, {});
  }

  private end(state: MatchState, at: number, reason: EndReason): void {
    this.ended = true;
    const series = state.tools.seriesInfo;
    const seriesResult = series.enable === true ? { needed: series.needed ?? null, wonLeft: series.wonLeft ?? null, wonRight: series.wonRight ?? null } : null;
    this.emit('match_ended', at, state, {
      reason, matchId: state.matchId, map: state.map, teams: teams(state), score: score(state), players: matchLines(state), series: seriesResult,
    });
  }

  private kill(state: MatchState, data: KillfeedData, at: number): void {
    const tracker = this.tracker;
    const attacker = findByName(state, data.attacker);
    const victim = findByName(state, data.victim);
    const teamKill = attacker !== undefined && victim !== undefined && attacker.team === victim.team;
    const firstBlood = !tracker.firstBlood && !teamKill;
    if (firstBlood) tracker.firstBlood = true;
    if (victim) tracker.alive.set(victim.player.name, false);
    const assists = attacker ? this.assistants(state, attacker.team, data.assists) : [];
    this.emit('kill', at, state, {
      attacker: attacker ? playerRef(state, attacker.player, attacker.team) : { name: data.attacker },
      victim: victim ? playerRef(state, victim.player, victim.team) : { name: data.victim },
      weapon: data.weaponKillfeedInternal,
      weaponName: weaponDisplay(data.weaponKillfeedInternal) ?? data.weaponKillfeedInternal,
      headshot: data.headshotKill === true,
      assists,
      firstBlood,
      teamKill,
    });
    if (!attacker || teamKill) return this.lastStanding(state, victim?.team);
    const count = (tracker.kills.get(attacker.player.name) ?? 0) + 1;
    tracker.kills.set(attacker.player.name, count);
    const player = playerRef(state, attacker.player, attacker.team);
    if (count >= 2) this.emit('multi_kill', at, state, { player, kills: count });
    const enemies = state.teams.find((t) => t.ingameTeamId !== attacker.team)?.players.length ?? 0;
    if (count === enemies && enemies >= 5) this.emit('ace', at, state, { player });
    this.lastStanding(state, victim?.team);
  }

  /** A team down to one player: that player is its clutch candidate against the enemies then alive. */
  private lastStanding(state: MatchState, team: TeamId | undefined): void {
    if (team === undefined || this.tracker.clutch[team]) return;
    const left = this.tracker.aliveIn(state, team);
    if (left.length !== 1) return;
    const against = this.tracker.aliveIn(state, team === 0 ? 1 : 0).length;
    if (against >= 1) this.tracker.clutch[team] = { player: left[0], team, against };
  }

  private assistants(state: MatchState, team: TeamId, icons: unknown[] | undefined): { playerId: string; name: string; agent: string; team: TeamId }[] {
    if (!Array.isArray(icons)) return [];
    const t = state.teams.find((x) => x.ingameTeamId === team);
    const out = [];
    for (const icon of icons) {
      if (typeof icon !== 'string') continue;
      const codename = assistCodename(icon);
      const p = codename === undefined ? undefined : t?.players.find((x) => x.agentInternal === codename);
      if (p) out.push(playerRef(state, p, team));
    }
    return out;
  }

  /**
   * The planter: the last attacker a scoreboard row showed holding the spike (the plant message names
   * nobody, and a row of the plant's own millisecond may show the spike gone already); else the
   * attacker holding it now, when a row says so.
   */
  private carrier(state: MatchState): ReturnType<typeof playerRef> | null {
    const holder = this.tracker.spikeHolder === null ? undefined : findByName(state, this.tracker.spikeHolder);
    if (holder && state.teams.some((t) => t.isAttacking && t.ingameTeamId === holder.team)) return playerRef(state, holder.player, holder.team);
    for (const t of state.teams) {
      if (!t.isAttacking) continue;
      const p = t.players.find((x: PlayerState) => x.hasSpike);
      if (p) return playerRef(state, p, t.ingameTeamId);
    }
    return null;
  }

  /** The defuse message names nobody: the one defender left alive, when there is exactly one. */
  private defuser(state: MatchState): ReturnType<typeof playerRef> | null {
    const defenders = state.teams.find((t) => !t.isAttacking);
    if (!defenders) return null;
    const alive = this.tracker.aliveIn(state, defenders.ingameTeamId);
    return alive.length === 1 ? playerRef(state, alive[0], defenders.ingameTeamId) : null;
  }
}
