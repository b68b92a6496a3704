// What one round needs remembered to name its kills: who is alive (from the killfeed), each player's
// kills in it (multi-kills, aces), whether blood was drawn (first blood), and each team's last player
// standing with the enemies left at that moment (clutches). Rebuilt from the state after a restore.
import type { MatchState, PlayerState } from '../match/types.js';
import type { TeamId } from '../../protocol/match-events.js';

export interface ClutchCandidate {
  player: PlayerState;
  team: TeamId;
  against: number;
}

export class RoundTracker {
  /** Player name → alive. */
  readonly alive = new Map<string, boolean>();
  /** Player name → enemy kills this round. */
  readonly kills = new Map<string, number>();
  firstBlood = false;
  /** Per game team, its last player alive and the enemies alive when that player became the last. */
  readonly clutch: [ClutchCandidate | null, ClutchCandidate | null] = [null, null];

  /** A new round: everyone on the roster alive, nothing counted. */
  reset(state: MatchState): void {
    this.alive.clear();
    this.kills.clear();
    this.firstBlood = false;
    this.clutch[0] = null;
    this.clutch[1] = null;
    for (const team of state.teams) for (const p of team.players) this.alive.set(p.name, true);
  }

  /** After a restore mid-round: the state's view (alive flags, kills this round). */
  resume(state: MatchState): void {
    this.reset(state);
    for (const team of state.teams) {
      for (const p of team.players) {
        this.alive.set(p.name, p.isAlive);
        if (p.killsThisRound > 0) this.kills.set(p.name, p.killsThisRound);
        if (p.deathsThisRound > 0) this.firstBlood = true;
      }
    }
  }

  aliveIn(state: MatchState, team: TeamId): PlayerState[] {
    const out: PlayerState[] = [];
    for (const t of state.teams) {
      if (t.ingameTeamId !== team) continue;
      for (const p of t.players) if (this.alive.get(p.name) !== false) out.push(p);
    }
    return out;
  }
}
