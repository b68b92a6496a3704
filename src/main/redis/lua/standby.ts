// The standby store's Lua (standby/adapters/redis/standby-store.ts), as text only: lua-scripts.ts registers
// every script of the service under its name. One hash per match: armedUntil, digest, primary.

/** KEYS: standby(code). ARGV: field, value, ttl seconds. One field set, the hash's expiry renewed. */
export const SET = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;

/** KEYS: standby(code). ARGV: digest, now, ttl seconds. 1: admitted (the window closes), 0: no open window. */
export const ADMIT = `
local armed = tonumber(redis.call('HGET', KEYS[1], 'armedUntil') or '0')
if armed <= tonumber(ARGV[2]) then return 0 end
redis.call('HDEL', KEYS[1], 'armedUntil')
redis.call('HSET', KEYS[1], 'digest', ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return 1
`;

/** KEYS: standby(code). */
export const DELETE = `
return redis.call('DEL', KEYS[1])
`;
