// TeamInfoStore on Redis (previews/team-info-store.ts), shared by every node. An entry is a hash under
// keys.teamInfo(code) with two JSON texts: `teams` ({leftTeam, rightTeam}, from the logon) and, after
// game_end, `final` (the post-match members); it expires TEAM_INFO_TTL_MS after its last write
// (PEXPIREAT, Redis's clock). Two fields instead of one JSON text so that setFinal's
// read-modify-write is a script that never decodes and re-encodes the teams (Lua's cjson would
// turn an empty array into an object and round numbers): it keeps the `teams` text as it is.
// size() counts a sorted set of codes by expiry time (teamInfoIndex), pruned by every write:
// cheaper than a SCAN of the whole keyspace, and exact.
// The scripts: lua/team-info.ts.
import type { TeamInfo, TeamInfoFinal, TeamInfoStore } from '../../team-info-store.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { TEAM_INFO_SCRIPTS } from './lua/team-info.js';

export interface RedisTeamInfoStoreOptions {
  ttlMs: number;
}

export class RedisTeamInfoStore implements TeamInfoStore {
  /** The command connection with this store's scripts (lua/team-info.ts). */
  private get lua() { return this.conn.scripts(TEAM_INFO_SCRIPTS); }

  constructor(private readonly conn: RedisConnection, private readonly options: RedisTeamInfoStoreOptions) {}

  async set(groupCode: string, teams: { leftTeam: unknown; rightTeam: unknown }): Promise<void> {
    const k = this.conn.keys;
    await this.lua.odsTeamWrite(k.teamInfo(groupCode), k.teamInfoIndex, groupCode, this.options.ttlMs,
      JSON.stringify({ leftTeam: teams.leftTeam, rightTeam: teams.rightTeam }), '', '0');
  }

  /** One script: the entry's own teams (or `extra`'s, without an entry) with the post-match members. */
  async setFinal(groupCode: string, extra: TeamInfoFinal): Promise<void> {
    const k = this.conn.keys;
    const teams = extra.leftTeam === undefined || extra.rightTeam === undefined ? '' : JSON.stringify({ leftTeam: extra.leftTeam, rightTeam: extra.rightTeam });
    const final = JSON.stringify({ higherScore: extra.higherScore, tournamentInfo: extra.tournamentInfo, sponsorInfo: extra.sponsorInfo, isSupporter: extra.isSupporter });
    await this.lua.odsTeamWrite(k.teamInfo(groupCode), k.teamInfoIndex, groupCode, this.options.ttlMs, teams, final, '1');
  }

  async get(groupCode: string): Promise<TeamInfo | undefined> {
    const [teams, final] = await this.conn.cmd.hmget(this.conn.keys.teamInfo(groupCode), 'teams', 'final');
    if (teams === null) return undefined;
    const entry = JSON.parse(teams) as TeamInfo;
    return final === null ? entry : { ...entry, ...(JSON.parse(final) as Omit<TeamInfo, 'leftTeam' | 'rightTeam'>) };
  }

  async size(): Promise<number> {
    const k = this.conn.keys;
    return this.lua.odsTeamSize(k.teamInfoIndex, k.teamInfoIndex);
  }

  /** No timers or subscriptions of its own; the connection is the composition root's. */
  close(): void {}
}
