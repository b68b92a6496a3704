// The directory's and the leases' Lua (matches/adapters/redis/match-directory.ts, match-ownership.ts), with the
// names and signatures its adapters call them by (at the end).
//
// The record is stored as `{"epoch":…,"owner":…,"matchId":…,"secretDigest":…,"playerIds":[…],
// "base":{…}}` (directory-records.ts); every change publishes itself on the directory channel.
import type { Arg, ScriptDefinitions } from '../../../../redis/connection.js';
// Shared by the scripts: the record is `{"epoch":…,"owner":…,"matchId":…,"secretDigest":…,
// "playerIds":[…],"base":{…}}`; no field before "base" can contain `,"base":` (JSON strings escape
// their quotes), so the first one splits it; "base" is never decoded and re-encoded (cjson would turn
// an empty array into {} and round numbers).
const LUA_LIB = `
local function split(s)
  local p = string.find(s, ',"base":', 1, true)
  return cjson.decode(string.sub(s, 1, p - 1) .. '}'), string.sub(s, p + 8, -2)
end
local function ids(t)
  if next(t) == nil then return '[]' end
  return cjson.encode(t)
end
local function build(h, base)
  return '{"epoch":' .. string.format('%d', h.epoch) .. ',"owner":' .. cjson.encode(h.owner) ..
    ',"matchId":' .. cjson.encode(h.matchId) .. ',"secretDigest":' .. cjson.encode(h.secretDigest) ..
    ',"playerIds":' .. ids(h.playerIds) .. ',"base":' .. base .. '}'
end
local function pubset(channel, node, seq, rec)
  redis.call('PUBLISH', channel, '{"t":"set","w":' .. cjson.encode(node) .. ',"s":' .. seq .. ',"r":' .. rec .. '}')
end
local function nextepoch(key, above)
  local epoch = redis.call('INCR', key)
  if epoch <= above then
    epoch = above + 1
    redis.call('SET', key, string.format('%d', epoch))
  end
  return epoch
end
`;

// KEYS: lease, match, matches, perKey, epoch. ARGV: node, ttl, after, maxLive ('' = no limits),
// maxPerKey, record (epoch and owner are set here), channel, seq, code.
// A code with a record is taken, live lease or not (an orphan is adopted, never re-created).
export const CLAIM = `${LUA_LIB}
local cur = redis.call('GET', KEYS[2])
if cur then return {'taken', cur} end
if ARGV[4] ~= '' then
  if redis.call('SCARD', KEYS[3]) >= tonumber(ARGV[4]) then return {'capacity'} end
  if tonumber(redis.call('GET', KEYS[4]) or '0') >= tonumber(ARGV[5]) then return {'key_capacity'} end
end
local epoch = nextepoch(KEYS[5], tonumber(ARGV[3]))
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. string.format('%d', epoch), 'PX', ARGV[2])
local h, base = split(ARGV[6])
h.epoch = epoch
h.owner = ARGV[1]
local rec = build(h, base)
redis.call('SET', KEYS[2], rec)
redis.call('SADD', KEYS[3], ARGV[9])
redis.call('INCR', KEYS[4])
pubset(ARGV[7], ARGV[1], ARGV[8], rec)
return {'ok', rec}
`;

// KEYS: lease, match, matches, perKey, ended. ARGV: node, epoch, channel, seq, code, ended ttl.
// Only the claim of that epoch is removed; the lease only when it is this node's. The code's `ended`
// marker keeps the epoch (for `ended ttl` ms): a node frozen meanwhile with an older epoch of it
// learns at its next renewal that its match went on elsewhere and ended (RENEW: 0), not that Redis lost it.
export const RELEASE = `${LUA_LIB}
local cur = redis.call('GET', KEYS[2])
if not cur then return 0 end
local h = split(cur)
if h.epoch ~= tonumber(ARGV[2]) then return 0 end
if redis.call('GET', KEYS[1]) == ARGV[1] .. ' ' .. ARGV[2] then redis.call('DEL', KEYS[1]) end
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[5], ARGV[2], 'PX', ARGV[6])
redis.call('SREM', KEYS[3], ARGV[5])
if redis.call('DECR', KEYS[4]) <= 0 then redis.call('DEL', KEYS[4]) end
redis.call('PUBLISH', ARGV[3], '{"t":"del","w":' .. cjson.encode(ARGV[1]) .. ',"s":' .. ARGV[4] ..
  ',"c":' .. cjson.encode(ARGV[5]) .. ',"e":' .. ARGV[2] .. '}')
return 1
`;

// KEYS: match. ARGV: node, epoch, field, value (playerIds: a JSON array), channel, seq.
// Changes one field of the record, only while the record is still the claim of that epoch.
export const UPDATE = `${LUA_LIB}
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local h, base = split(cur)
if h.epoch ~= tonumber(ARGV[2]) then return 0 end
if ARGV[3] == 'playerIds' then h.playerIds = cjson.decode(ARGV[4]) else h[ARGV[3]] = ARGV[4] end
local rec = build(h, base)
redis.call('SET', KEYS[1], rec)
pubset(ARGV[5], ARGV[1], ARGV[6], rec)
return 1
`;

// ARGV: node, ttl, lease prefix, match prefix, ended prefix, then (code, epoch) pairs. Per pair: 1
// renewed (the lease is ours), 2 re-taken (no lease, the record is still our epoch's: nobody adopted
// it), 3 gone (no lease, no record, no `ended` marker of our epoch or later: Redis lost it,
// re-assert), 0 lost (another node's lease or epoch, or the match ended under our epoch or a later one).
export const RENEW = `${LUA_LIB}
local res = {}
for i = 6, #ARGV, 2 do
  local code, epoch = ARGV[i], ARGV[i + 1]
  local mine = ARGV[1] .. ' ' .. epoch
  local lk = ARGV[3] .. code
  local lease = redis.call('GET', lk)
  if lease == mine then
    redis.call('PEXPIRE', lk, ARGV[2])
    res[#res + 1] = 1
  elseif lease then
    res[#res + 1] = 0
  else
    local cur = redis.call('GET', ARGV[4] .. code)
    local ended = tonumber(redis.call('GET', ARGV[5] .. code) or '')
    if not cur and ended and ended >= tonumber(epoch) then
      res[#res + 1] = 0
    elseif not cur then
      res[#res + 1] = 3
    elseif split(cur).epoch == tonumber(epoch) then
      redis.call('SET', lk, mine, 'PX', ARGV[2])
      res[#res + 1] = 2
    else
      res[#res + 1] = 0
    end
  end
end
return res
`;

// KEYS: lease, match, matches, epoch. ARGV: node, ttl, after, channel, seq, code.
// An orphan (record, no lease) becomes ours with an epoch above the counter, `after` and its own.
export const ADOPT = `${LUA_LIB}
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local cur = redis.call('GET', KEYS[2])
if not cur then return false end
local h, base = split(cur)
local above = tonumber(ARGV[3])
if h.epoch > above then above = h.epoch end
local epoch = nextepoch(KEYS[4], above)
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. string.format('%d', epoch), 'PX', ARGV[2])
h.epoch = epoch
h.owner = ARGV[1]
local rec = build(h, base)
redis.call('SET', KEYS[2], rec)
redis.call('SADD', KEYS[3], ARGV[6])
pubset(ARGV[4], ARGV[1], ARGV[5], rec)
return rec
`;

// KEYS: matches. ARGV: lease prefix. The live codes without a lease.
export const ORPHANS = `
local out = {}
for _, code in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if redis.call('EXISTS', ARGV[1] .. code) == 0 then out[#out + 1] = code end
end
return out
`;

// KEYS: matches. ARGV: match prefix, channel, marker id. Every record, then a marker on the
// channel: the messages before it are in the records returned.
export const LOAD = `
local out = {}
for _, code in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local rec = redis.call('GET', ARGV[1] .. code)
  if rec then out[#out + 1] = rec end
end
redis.call('PUBLISH', ARGV[2], '{"t":"mark","id":' .. cjson.encode(ARGV[3]) .. '}')
return out
`;

// KEYS: lease. ARGV: "<node> <epoch>". Deletes a lease only while it is still this node's (same owner and epoch).
export const RELINQUISH = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** The scripts above as the adapter calls them (`conn.scripts(DIRECTORY_SCRIPTS)` defines them on the command connection). */
export interface DirectoryScripts {
  odsDirClaim(...args: Arg[]): Promise<[string, string?]>;
  odsDirRelease(...args: Arg[]): Promise<number>;
  odsDirUpdate(...args: Arg[]): Promise<number>;
  odsDirRenew(...args: Arg[]): Promise<number[]>;
  odsDirAdopt(...args: Arg[]): Promise<string | null>;
  odsDirOrphans(...args: Arg[]): Promise<string[]>;
  odsDirLoad(...args: Arg[]): Promise<string[]>;
  odsDirRelinquish(lease: string, holder: string): Promise<number>;
}

export const DIRECTORY_SCRIPTS: ScriptDefinitions<DirectoryScripts> = {
  odsDirClaim: { numberOfKeys: 5, lua: CLAIM },
  odsDirRelease: { numberOfKeys: 5, lua: RELEASE },
  odsDirUpdate: { numberOfKeys: 1, lua: UPDATE },
  odsDirRenew: { numberOfKeys: 0, lua: RENEW },
  odsDirAdopt: { numberOfKeys: 4, lua: ADOPT },
  odsDirOrphans: { numberOfKeys: 1, lua: ORPHANS },
  odsDirLoad: { numberOfKeys: 1, lua: LOAD },
  odsDirRelinquish: { numberOfKeys: 1, lua: RELINQUISH },
};
