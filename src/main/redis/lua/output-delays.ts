// The output delay store's Lua (output-delay/adapters/redis/output-delay-store.ts), as text only: lua-scripts.ts
// registers every script of the service under its name. One hash, odelays: group code → seconds.

/** KEYS: odelays, revision. ARGV: code, seconds ('0' deletes), max. 1: written; 0: a new code past the bound. */
export const SET = `
if ARGV[2] ~= '0' and redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 and redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
if ARGV[2] == '0' then redis.call('HDEL', KEYS[1], ARGV[1]) else redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
redis.call('INCR', KEYS[2])
return 1
`;
