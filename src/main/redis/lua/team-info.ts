// The team-info store's Lua (previews/adapters/redis/team-info-store.ts), as text only: lua-scripts.ts
// registers every script of the service under its name. Expiry on Redis's clock (TIME).

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
