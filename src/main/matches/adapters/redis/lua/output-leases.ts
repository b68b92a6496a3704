// The outputs leases' Lua (matches/adapters/redis/match-ownership.ts), with the names and
// signatures its adapter calls them by (at the end). A match instance's outputs (its events not yet every endpoint's, its cursors, its
// record) are owned through a lease per matchKey (keys.outputLease = "<node> <epoch>", PX =
// REDIS_LEASE_TTL_MS) and the set of matches whose outputs are unsettled (keys.outputs), beside the
// group code's lease (docs/reliability.md, "One owner of a match's outputs"). Epochs come from the
// one counter of the leases (keys.epoch): a later takeover, of the match or of its outputs, always
// holds a higher one, and the higher epoch wins.
import type { Arg, ScriptDefinitions } from '../../../../redis/connection.js';
/**
 * KEYS: outputs. ARGV: node, ttl, lease prefix, fence prefix, fence ttl, then (matchKey, epoch)
 * pairs. Per pair: 1 held (the lease is this node's at that epoch now, and the match's fence raised
 * to it: a holder at a lower epoch is refused from then on, before this node writes anything), 0
 * lost: the outputs are held at a higher epoch (another node's lease, or the fence raised by its
 * writes, its hold or its adoption).
 */
export const HOLD = `
local res = {}
for i = 6, #ARGV, 2 do
  local key, epoch = ARGV[i], tonumber(ARGV[i + 1])
  local lk = ARGV[3] .. key
  local lease = redis.call('GET', lk)
  local held = lease and tonumber(string.match(lease, ' (%d+)$'))
  local fence = tonumber(redis.call('GET', ARGV[4] .. key) or '0')
  if fence > epoch or (held and (held > epoch or (held == epoch and lease ~= ARGV[1] .. ' ' .. ARGV[i + 1]))) then
    res[#res + 1] = 0
  else
    redis.call('SET', lk, ARGV[1] .. ' ' .. ARGV[i + 1], 'PX', ARGV[2])
    if epoch > fence then redis.call('SET', ARGV[4] .. key, ARGV[i + 1], 'PX', ARGV[5]) end
    redis.call('SADD', KEYS[1], key)
    res[#res + 1] = 1
  end
end
return res
`;

/**
 * KEYS: outputs, epoch. ARGV: node, ttl, lease prefix, fence prefix, fence ttl, group lease prefix,
 * group record prefix, stream prefix, matchKey. An orphan's outputs (unsettled, no lease) become the
 * caller's with a new epoch, raised into the match's fence (the lost holder's late writes are
 * refused from then on): the epoch, or false. A running match (its last event is not match_ended)
 * whose group code has a lease or a record is no outputs orphan: its owner runs it, or the match's
 * own adoption (from its snapshot) takes its outputs with it. A match with no events left settles.
 */
export const ADOPT = `
local key = ARGV[9]
if redis.call('SISMEMBER', KEYS[1], key) == 0 or redis.call('EXISTS', ARGV[3] .. key) == 1 then return false end
local last = redis.call('XREVRANGE', ARGV[8] .. key, '+', '-', 'COUNT', 1)
if #last == 0 then
  redis.call('SREM', KEYS[1], key)
  return false
end
local code = string.match(key, '^(.*)%-[^-]*$') or key
local ended = string.find(last[1][2][6] or '', '"type":"match_ended"', 1, true)
if not ended and (redis.call('EXISTS', ARGV[6] .. code) == 1 or redis.call('EXISTS', ARGV[7] .. code) == 1) then return false end
local fk = ARGV[4] .. key
local above = tonumber(redis.call('GET', fk) or '0')
local epoch = redis.call('INCR', KEYS[2])
if epoch <= above then
  epoch = above + 1
  redis.call('SET', KEYS[2], string.format('%d', epoch))
end
redis.call('SET', ARGV[3] .. key, ARGV[1] .. ' ' .. string.format('%d', epoch), 'PX', ARGV[2])
redis.call('SET', fk, string.format('%d', epoch), 'PX', ARGV[5])
return epoch
`;

/** KEYS: outputs. ARGV: lease prefix. The matches whose outputs are unsettled and have no lease (their holder is gone). */
export const ORPHANS = `
local out = {}
for _, key in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('EXISTS', ARGV[1] .. key) == 0 then out[#out + 1] = key end
end
return out
`;

/** KEYS: lease, outputs. ARGV: "<node> <epoch>", matchKey. The outputs settled: the lease goes while it is still this holder's (or lapsed). */
export const SETTLE = `
local lease = redis.call('GET', KEYS[1])
if lease and lease ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[2])
return 1
`;

/** The scripts above as the adapter calls them (`conn.scripts(OUTPUT_LEASES_SCRIPTS)` defines them on the command connection). */
export interface OutputLeasesScripts {
  odsOutputsHold(outputs: string, node: string, ttlMs: number, leasePrefix: string, fencePrefix: string, fenceTtlMs: number, ...pairs: Arg[]): Promise<number[]>;
  odsOutputsAdopt(outputs: string, epochCounter: string, node: string, ttlMs: number, leasePrefix: string, fencePrefix: string, fenceTtlMs: number, groupLeasePrefix: string, groupRecordPrefix: string, streamPrefix: string, matchKey: string): Promise<number | null>;
  odsOutputsOrphans(outputs: string, leasePrefix: string): Promise<string[]>;
  odsOutputsSettle(lease: string, outputs: string, holder: string, matchKey: string): Promise<number>;
}

export const OUTPUT_LEASES_SCRIPTS: ScriptDefinitions<OutputLeasesScripts> = {
  odsOutputsHold: { numberOfKeys: 1, lua: HOLD },
  odsOutputsAdopt: { numberOfKeys: 2, lua: ADOPT },
  odsOutputsOrphans: { numberOfKeys: 1, lua: ORPHANS },
  odsOutputsSettle: { numberOfKeys: 2, lua: SETTLE },
};
