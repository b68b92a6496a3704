// The event outbox's Lua (adapters/redis/event-outbox.ts), as text only: lua-scripts.ts registers
// it. A match's events are a stream (keys.eventStream) whose entry ids are `0-<seq>`; the
// endpoints' cursors of a match are a hash (keys.eventCursors), endpoint id → seq.

/** KEYS: stream. ARGV: seq, order, organizationId, text, ttlMs. 1: added; 0: seq is not the next one. */
export const APPEND = `
local top = 0
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last > 0 then top = tonumber(string.match(last[1][1], '-(%d+)$')) end
if tonumber(ARGV[1]) ~= top + 1 then return 0 end
redis.call('XADD', KEYS[1], '0-' .. ARGV[1], 'o', ARGV[2], 'g', ARGV[3], 'e', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

/** KEYS: cursors. ARGV: endpoint id, seq, ttlMs. 1: moved; 0: it was there already. */
export const ADVANCE = `
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) <= current then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** KEYS: open (a sorted set: matchKey → when its holder's claim lapses, Redis's clock). ARGV: ttlMs, matchKeys… The holder's claim renewed. */
export const HOLD = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[i]) end
return #ARGV - 1
`;

/** KEYS: open. ARGV: ttlMs, max. The matches whose holder's claim lapsed, claimed for the caller (one caller gets each). */
export const CLAIM = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
for _, key in ipairs(lapsed) do redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), key) end
return lapsed
`;
