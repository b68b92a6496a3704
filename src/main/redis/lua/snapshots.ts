// The snapshot store's Lua (matches/adapters/redis/snapshot-store.ts), as text only: lua-scripts.ts registers
// every script of the service under its name. Both are fenced by the stored epoch.

/**
 * KEYS: snapshot(code). ARGV: epoch, data[, base] (the base its deltas are against: snapshot-format.ts).
 * 0 (nothing changes) when a higher epoch is stored.
 */
export const PUT = `
local current = redis.call('HGET', KEYS[1], 'epoch')
if current and tonumber(current) > tonumber(ARGV[1]) then return 0 end
if ARGV[3] then
  redis.call('HSET', KEYS[1], 'epoch', ARGV[1], 'data', ARGV[2], 'base', ARGV[3])
else
  redis.call('HSET', KEYS[1], 'epoch', ARGV[1], 'data', ARGV[2])
end
return 1
`;

/** KEYS: snapshot(code). ARGV: epoch. 0 (nothing deleted) when a higher epoch is stored. */
export const DELETE = `
local current = redis.call('HGET', KEYS[1], 'epoch')
if current and tonumber(current) > tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;
