// The event outbox's Lua (adapters/redis/event-outbox.ts), as text only: lua-scripts.ts registers
// it. A match's events are a stream (keys.eventStream) whose entry ids are `0-<seq>`; the
// endpoints' cursors of a match are a hash (keys.eventCursors), endpoint id → seq.
//
// Fencing (docs/reliability.md, "One owner of a match's outputs"): every write carries the writer's
// epoch for the match (its MatchOwnership epoch, or the one an orphan's claim gave it) and is refused
// (-1) when the match's outputs are held at a higher epoch: the match's fence key (keys.eventFence,
// raised by every write and by a claim) or, for a write of a running match, the group code's lease.
// So a deposed owner's late append, cursor move or record write is refused by Redis, whatever the timing.

/** The fence, shared by the writing scripts: KEYS[f] fence, KEYS[f + 1] lease; epoch, live ('1': check the lease), ttl. True: refused. */
export const FENCE = `
local function fenced(fk, lk, epoch, live, ttl)
  local cur = tonumber(redis.call('GET', fk) or '0')
  if cur > epoch then return true end
  if live == '1' then
    local lease = redis.call('GET', lk)
    local held = lease and tonumber(string.match(lease, ' (%d+)$'))
    if held and held > epoch then return true end
  end
  if epoch > cur then redis.call('SET', fk, string.format('%d', epoch), 'PX', ttl) else redis.call('PEXPIRE', fk, ttl) end
  return false
end
`;

/** KEYS: stream, fence, lease. ARGV: seq, order, organizationId, text, ttlMs, epoch, live. 1: added; 0: seq is not the next one; -1: fenced. */
export const APPEND = FENCE + `
if fenced(KEYS[2], KEYS[3], tonumber(ARGV[6]), ARGV[7], ARGV[5]) then return -1 end
local top = 0
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
if #last > 0 then top = tonumber(string.match(last[1][1], '-(%d+)$')) end
if tonumber(ARGV[1]) ~= top + 1 then return 0 end
redis.call('XADD', KEYS[1], '0-' .. ARGV[1], 'o', ARGV[2], 'g', ARGV[3], 'e', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`;

/** KEYS: cursors, fence, lease. ARGV: endpoint id, seq, ttlMs, epoch, live. 1: moved; 0: it was there already; -1: fenced. */
export const ADVANCE = FENCE + `
if fenced(KEYS[2], KEYS[3], tonumber(ARGV[4]), ARGV[5], ARGV[3]) then return -1 end
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if tonumber(ARGV[2]) <= current then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/**
 * KEYS: open (a sorted set: matchKey → when its holder's claim lapses, Redis's clock). ARGV: ttlMs,
 * fence prefix, then (matchKey, epoch) pairs. Each hold renewed unless the match's outputs are
 * fenced above the holder's epoch (another node claimed them): those matchKeys are returned.
 */
export const HOLD = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lost = {}
for i = 3, #ARGV, 2 do
  local cur = tonumber(redis.call('GET', ARGV[2] .. ARGV[i]) or '0')
  if cur > tonumber(ARGV[i + 1]) then lost[#lost + 1] = ARGV[i]
  else redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[i]) end
end
return lost
`;

/**
 * KEYS: open, epoch (the MatchOwnership epoch counter). ARGV: ttlMs, max, fence prefix, fence ttlMs,
 * lease prefix, stream prefix. The matches whose holder's claim lapsed, claimed for the caller (one
 * caller gets each), each with a new epoch from the counter, raised into its fence: the lost holder's
 * late writes are refused from then on. Flat: matchKey, epoch, …
 * A running match (its last event is not match_ended) whose group code has a live lease is no
 * orphan: the lease's holder runs it (a code gets a new match only after the old one ended), and
 * claiming it would fence that owner; its hold is pushed on instead.
 */
export const CLAIM = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lapsed = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, key in ipairs(lapsed) do
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), key)
  local code = string.match(key, '^(.*)%-[^-]*$') or key
  local owned = false
  if redis.call('EXISTS', ARGV[5] .. code) == 1 then
    local last = redis.call('XREVRANGE', ARGV[6] .. key, '+', '-', 'COUNT', 1)
    owned = not (#last > 0 and string.find(last[1][2][6] or '', '"type":"match_ended"', 1, true))
  end
  if not owned then
  local fk = ARGV[3] .. key
  local epoch = redis.call('INCR', KEYS[2])
  local cur = tonumber(redis.call('GET', fk) or '0')
  if epoch <= cur then
    epoch = cur + 1
    redis.call('SET', KEYS[2], string.format('%d', epoch))
  end
  redis.call('SET', fk, string.format('%d', epoch), 'PX', ARGV[4])
  out[#out + 1] = key
  out[#out + 1] = string.format('%d', epoch)
  end
end
return out
`;
