// TeamInfoStore: group code → the match's teams from its logon, plus the post-match members after
// game_end (docs/match-rules.md 2.5, 14.2, 14.3), for TEAM_INFO_TTL_MS from the last write. The match side
// writes (creation, game end), GET /getTeamInfoForCode reads.
//
// Asynchronous: a shared adapter answers over the network. The final update is one atomic
// read-modify-write (Redis: a script), so it never loses a concurrent creation's entry half-way.
// Adapters: previews/adapters/memory/team-info-store.ts. Contract: test/main/previews/team-info-store.contract.ts.

export interface TeamInfo {
  leftTeam: unknown;
  rightTeam: unknown;
  higherScore?: 0 | 1;
  tournamentInfo?: unknown;
  sponsorInfo?: unknown;
  isSupporter?: boolean;
}

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
  /** A match was created: replaces any entry for the code (post-match members included); TTL from now. */
  set(groupCode: string, teams: { leftTeam: unknown; rightTeam: unknown }): Promise<void>;
  /**
   * The match ended: the entry's teams (or, without an entry, `extra`'s teams; without either,
   * nothing happens) with the post-match members; TTL from now. Atomic.
   */
  setFinal(groupCode: string, extra: TeamInfoFinal): Promise<void>;
  /** The live entry, or undefined. */
  get(groupCode: string): Promise<TeamInfo | undefined>;
  /** Live entries. */
  size(): Promise<number>;
  close(): void;
}
