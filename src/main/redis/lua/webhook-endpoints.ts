// The webhook endpoint store's Lua (events/adapters/redis/webhook-endpoint-store.ts), as text only:
// lua-scripts.ts registers every script of the service under its name. One hash, whendpoints: id → the endpoint's JSON.

/** KEYS: whendpoints, revision. ARGV: id, json, max. 'ok', 'exists' or 'full' (nothing written). */
export const ADD = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 'exists' end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then return 'full' end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('INCR', KEYS[2])
return 'ok'
`;

/** KEYS: whendpoints, revision. ARGV: id. 1: removed; 0: none had this id. */
export const REMOVE = `
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('INCR', KEYS[2])
return 1
`;
