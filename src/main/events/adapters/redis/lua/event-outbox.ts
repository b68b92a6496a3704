// The event outbox's Lua (events/adapters/redis/event-outbox.ts), with the names and
// signatures its adapter calls them by (at the end). A match's events are a stream (keys.eventStream) whose entry ids are `0-<seq>`; the
// endpoints' cursors of a match are a hash (keys.eventCursors), endpoint id → seq.
//
// Fencing (docs/reliability.md, "One owner of a match's outputs"): every write carries the writer's
// epoch for the match (its MatchOwnership epoch: the group code's lease's, or its outputs lease's) and is refused
// (-1) when the match's outputs are held at a higher epoch: the match's fence key (keys.eventFence,
// raised by every write and by taking the outputs lease: matches/adapters/redis/lua/output-leases.ts) or, for a write of a running match, the group code's lease.
// So a deposed owner's late append, cursor move or record write is refused by Redis, whatever the timing.
import type { ScriptDefinitions } from '../../../../redis/connection.js';
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

/** The scripts above as the adapter calls them (`conn.scripts(EVENT_OUTBOX_SCRIPTS)` defines them on the command connection). */
export interface EventOutboxScripts {
  odsEventAppend(stream: string, fence: string, lease: string, seq: number, order: number, organizationId: string, text: string, ttlMs: number, epoch: number, live: string): Promise<number>;
  odsEventAdvance(cursors: string, fence: string, lease: string, endpointId: string, seq: number, ttlMs: number, epoch: number, live: string): Promise<number>;
}

export const EVENT_OUTBOX_SCRIPTS: ScriptDefinitions<EventOutboxScripts> = {
  odsEventAppend: { numberOfKeys: 3, lua: APPEND },
  odsEventAdvance: { numberOfKeys: 3, lua: ADVANCE },
};
