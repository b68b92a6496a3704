// Team info store: group code → { leftTeam, rightTeam } from match creation, plus the post-match
// members after game_end (match-rules 2.5, 14.2, 14.3). TEAM_INFO_TTL_MS from the last write;
// expiry is checked on read, and a cleanup every TEAM_INFO_CLEANUP_MS frees expired entries.
//
// The port is synchronous because the match side calls it fire-and-forget and the contract says
// so; a shared (Redis) adapter would keep set/setFinal as fire-and-forget writes and needs an
// asynchronous get.
import { ExpiringMap } from './expiring-map.js';

export interface TeamInfoFinal {
  higherScore: 0 | 1;
  tournamentInfo: unknown;
  sponsorInfo: unknown;
  isSupporter: boolean;
  /**
   * The logon's teams, optional. A match can outlive the TTL of the entry made at its creation;
   * with these, setFinal recreates the entry instead of dropping the post-match info.
   */
  leftTeam?: unknown;
  rightTeam?: unknown;
}

export interface TeamInfoStore {
  /** A match was created: replaces any entry for the code (post-match info included). */
  set(groupCode: string, teams: { leftTeam: unknown; rightTeam: unknown }): void;
  /** The match ended: adds the post-match members and resets the expiry to now + TTL. */
  setFinal(groupCode: string, extra: TeamInfoFinal): void;
  get(groupCode: string): object | undefined;
  size(): number;
}

export interface TeamInfo {
  leftTeam: unknown;
  rightTeam: unknown;
  higherScore?: 0 | 1;
  tournamentInfo?: unknown;
  sponsorInfo?: unknown;
  isSupporter?: boolean;
}

export class MemoryTeamInfoStore implements TeamInfoStore {
  private readonly map: ExpiringMap<TeamInfo>;

  constructor(options: { ttlMs: number; cleanupMs: number; now?: () => number }) {
    this.map = new ExpiringMap<TeamInfo>({ ttlMs: options.ttlMs, now: options.now, sweep: options.cleanupMs });
  }

  set(groupCode: string, teams: { leftTeam: unknown; rightTeam: unknown }): void {
    this.map.set(groupCode, { leftTeam: teams.leftTeam, rightTeam: teams.rightTeam });
  }

  setFinal(groupCode: string, extra: TeamInfoFinal): void {
    const current = this.map.get(groupCode);
    const leftTeam = current ? current.leftTeam : extra.leftTeam;
    const rightTeam = current ? current.rightTeam : extra.rightTeam;
    if (leftTeam === undefined || rightTeam === undefined) return; // nothing to add to
    this.map.set(groupCode, {
      leftTeam,
      rightTeam,
      higherScore: extra.higherScore,
      tournamentInfo: extra.tournamentInfo,
      sponsorInfo: extra.sponsorInfo,
      isSupporter: extra.isSupporter,
    });
  }

  get(groupCode: string): TeamInfo | undefined {
    return this.map.get(groupCode);
  }

  /** Live entries (expired ones are swept first). */
  size(): number {
    this.map.sweep();
    return this.map.size;
  }

  /** Entries in memory, expired ones not yet swept included (for tests and metrics). */
  get held(): number {
    return this.map.size;
  }

  close(): void {
    this.map.close();
  }
}
