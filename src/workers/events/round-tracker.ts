// What one round needs remembered to name its kills: who is alive (from the killfeed), each player's
// kills in it (multi-kills, aces), whether blood was drawn (first blood), each team's last player
// standing with the enemies left at that moment (clutches), and what each player spent in its buy
// phase, who last held the spike. None of it can be read back from the state exactly (the scoreboard's alive flags and
// kill counts are another source, the order of the kills is not kept), so it is journaled with the
// match's snapshot (toJournal/fromJournal); a snapshot without it (an older version's) falls back to
// what the engine keeps of the round's killfeed.
import { findByName } from './refs.js';
import type { MatchState, PlayerState } from '../match/types.js';
import type { TeamId } from '../../protocol/match-events.js';

export interface ClutchCandidate {
  player: PlayerState;
  team: TeamId;
  against: number;
}

/** The tracker as plain JSON: pairs, not objects keyed by names (a name is any string). */
export interface TrackerJournal {
  alive: [string, boolean][];
  kills: [string, number][];
  firstBlood: boolean;
  clutch: [{ name: string; against: number } | null, { name: string; against: number } | null];
  /** playerId → credits spent in the round's buy phase (set when it ended). */
  spent: [string, number][];
  spikeHolder: string | null;
}

export class RoundTracker {
  /** Player name → alive. */
  readonly alive = new Map<string, boolean>();
  /** Player name → enemy kills this round. */
  readonly kills = new Map<string, number>();
  firstBlood = false;
  /** Per game team, its last player alive and the enemies alive when that player became the last. */
  readonly clutch: [ClutchCandidate | null, ClutchCandidate | null] = [null, null];
  /** playerId → `moneySpent` when the round's buy phase ended (docs/events.md, `spent`). */
  readonly spent = new Map<string, number>();
  /** The name of the last attacker a scoreboard row showed holding the spike (the planter, when it is planted). */
  spikeHolder: string | null = null;

  /** A new round: everyone on the roster alive, nothing counted. */
  reset(state: MatchState): void {
    this.alive.clear();
    this.kills.clear();
    this.spent.clear();
    this.firstBlood = false;
    this.spikeHolder = null;
    this.clutch[0] = null;
    this.clutch[1] = null;
    for (const team of state.teams) for (const p of team.players) this.alive.set(p.name, true);
  }

  /** The buy phase ended: what each player spent in it, as the economy rule counts it (docs/match-rules.md 8.1). */
  buyPhaseEnded(state: MatchState): void {
    for (const team of state.teams) for (const p of team.players) this.spent.set(p.riotId, p.moneySpent);
  }

  /** Credits `p` spent in the round's buy phase; the state's count while it lasts (never below 0: a net sell-back is no spending). */
  spentBy(p: PlayerState): number {
    return Math.max(0, this.spent.get(p.riotId) ?? p.moneySpent);
  }

  toJournal(): TrackerJournal {
    const candidate = (c: ClutchCandidate | null) => (c ? { name: c.player.name, against: c.against } : null);
    return { alive: [...this.alive], kills: [...this.kills], firstBlood: this.firstBlood, clutch: [candidate(this.clutch[0]), candidate(this.clutch[1])], spent: [...this.spent], spikeHolder: this.spikeHolder };
  }

  /** After a restore: the journaled round, or (none: a snapshot of an older version) the round's killfeed as the engine keeps it. */
  resume(state: MatchState, journal: TrackerJournal | undefined): void {
    this.reset(state);
    if (!journal) return this.fromKillfeed(state);
    for (const [name, alive] of journal.alive) this.alive.set(name, alive);
    for (const [name, n] of journal.kills) this.kills.set(name, n);
    for (const [id, n] of journal.spent) this.spent.set(id, n);
    this.firstBlood = journal.firstBlood;
    this.spikeHolder = journal.spikeHolder;
    for (const team of [0, 1] as const) {
      const c = journal.clutch[team];
      const found = c ? findByName(state, c.name) : undefined;
      this.clutch[team] = c && found ? { player: found.player, team, against: c.against } : null;
    }
  }

  /** Each player's `killedPlayerNames` (the round's killfeed victims by attacker): the dead, the kills, first blood. No clutch (the kills' order is not kept). */
  private fromKillfeed(state: MatchState): void {
    for (const team of state.teams) {
      for (const p of team.players) {
        let enemies = 0;
        for (const victim of p.killedPlayerNames) {
          this.alive.set(victim, false);
          const v = findByName(state, victim);
          if (v && v.team !== team.ingameTeamId) enemies++;
        }
        if (enemies > 0) {
          this.kills.set(p.name, enemies);
          this.firstBlood = true;
        }
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
