// The team-info store's Lua (previews/adapters/redis/team-info-store.ts), with the names and
// signatures its adapter calls them by (at the end). Expiry on Redis's clock (TIME).
import type { Flag, ScriptDefinitions } from '../../../../redis/connection.js';
/** `now` on Redis's clock; index entries of expired codes dropped (an entry expiring at `now` is live, as its key). */
const PRUNE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. now)
`;

/** KEYS: teamInfo(code), teamInfoIndex. ARGV: code, ttlMs, teams JSON, final JSON ('' for none), only-if-present ('1'/'0'). */
export const WRITE = `${PRUNE}
local teams = ARGV[3]
if ARGV[5] == '1' then
  local current = redis.call('HGET', KEYS[1], 'teams')
  if current then teams = current elseif teams == '' then return 0 end
end
local expiry = now + tonumber(ARGV[2])
redis.call('DEL', KEYS[1])
if ARGV[4] == '' then
  redis.call('HSET', KEYS[1], 'teams', teams)
else
  redis.call('HSET', KEYS[1], 'teams', teams, 'final', ARGV[4])
end
redis.call('PEXPIREAT', KEYS[1], expiry)
redis.call('ZADD', KEYS[2], expiry, ARGV[1])
return 1
`;

/** KEYS: teamInfoIndex, teamInfoIndex. The live count. */
export const SIZE = `${PRUNE}
return redis.call('ZCARD', KEYS[2])
`;

/** The scripts above as the adapter calls them (`conn.scripts(TEAM_INFO_SCRIPTS)` defines them on the command connection). */
export interface TeamInfoScripts {
  odsTeamWrite(key: string, index: string, code: string, ttlMs: number, teams: string, final: string, update: Flag): Promise<number>;
  odsTeamSize(index: string, index2: string): Promise<number>;
}

export const TEAM_INFO_SCRIPTS: ScriptDefinitions<TeamInfoScripts> = {
  odsTeamWrite: { numberOfKeys: 2, lua: WRITE },
  odsTeamSize: { numberOfKeys: 2, lua: SIZE },
};
