// The fixture store's Lua (schedule/adapters/redis/fixture-store.ts), as text only: lua-scripts.ts registers
// every script of the service under its name. One hash, fixtures: group code → the fixture's JSON.

// Every write also increments KEYS[2] (the revision: readers list the hash again only when it moved).

/** KEYS: fixtures, revision. ARGV: max, then code, json pairs. 'ok'; 'exists:<code>'; 'full'. All or nothing. */
export const ADD = `
local n = (#ARGV - 1) / 2
for i = 0, n - 1 do
  if redis.call('HEXISTS', KEYS[1], ARGV[2 + i * 2]) == 1 then return 'exists:' .. ARGV[2 + i * 2] end
end
if redis.call('HLEN', KEYS[1]) + n > tonumber(ARGV[1]) then return 'full' end
for i = 0, n - 1 do redis.call('HSET', KEYS[1], ARGV[2 + i * 2], ARGV[3 + i * 2]) end
redis.call('INCR', KEYS[2])
return 'ok'
`;

/** KEYS: fixtures, revision. ARGV: code, the JSON read, the new JSON ('' deletes). 1: written; 0: it changed meanwhile. */
export const SWAP = `
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
redis.call('INCR', KEYS[2])
return 1
`;

/** KEYS: fixtures. Every fixture's JSON. */
export const ALL = `
return redis.call('HVALS', KEYS[1])
`;
