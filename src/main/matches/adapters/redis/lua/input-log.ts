// The input log's Lua (matches/adapters/redis/input-log.ts), with the names and
// signatures its adapter calls them by (at the end). A
// match's inputs are a stream (keys.inputLog) whose entry ids are `<epoch>-<n>`: Redis refuses an
// XADD whose id is not above the stream's last id (kept after XTRIM too), so an entry `<epoch>-0`
// (a fence: field `f`) closes the log to every writer of a lower epoch.
import type { Arg, ScriptDefinitions } from '../../../../redis/connection.js';
/**
 * KEYS: the streams of a flush's matches (inputLog(code), each once). ARGV: ttlMs, then each input in
 * order as `k id t r v` (an observer payload: KEYS[k], fields t and r, and v unless it is '') or
 * `-k id t r v m p` (an auxiliary one, fields m and p too). XADDs each with `redis.pcall`, so a refused one (the fence: its
 * id not above the stream's last) or a failed one leaves the rest written, then refreshes each
 * stream's expiry. Answers the inputs not added, flat: `[i, error, …]` (i: the input's place, from 1).
 */
export const APPEND = `
local failed = {}
local i, n = 2, 0
while i <= #ARGV do
  n = n + 1
  local k = tonumber(ARGV[i])
  local res
  local v = ARGV[i + 4]
  if k > 0 then
    if v == '' then res = redis.pcall('XADD', KEYS[k], ARGV[i + 1], 't', ARGV[i + 2], 'r', ARGV[i + 3])
    else res = redis.pcall('XADD', KEYS[k], ARGV[i + 1], 't', ARGV[i + 2], 'r', ARGV[i + 3], 'v', v) end
    i = i + 5
  else
    if v == '' then res = redis.pcall('XADD', KEYS[-k], ARGV[i + 1], 't', ARGV[i + 2], 'r', ARGV[i + 3], 'm', ARGV[i + 5], 'p', ARGV[i + 6])
    else res = redis.pcall('XADD', KEYS[-k], ARGV[i + 1], 't', ARGV[i + 2], 'r', ARGV[i + 3], 'm', ARGV[i + 5], 'p', ARGV[i + 6], 'v', v) end
    i = i + 7
  end
  if type(res) == 'table' and res.err then
    failed[#failed + 1] = n
    failed[#failed + 1] = res.err
  end
end
for k = 1, #KEYS do redis.pcall('PEXPIRE', KEYS[k], ARGV[1]) end
return failed
`;

/**
 * KEYS: inputLog(code). ARGV: fence id (`<epoch>-0`, '' for none), start id (`<fromEpoch>-<after + 1>`),
 * after, ttlMs. Adds the fence unless the stream's last id is at or above it already (the stream is
 * created when missing), then answers the entries from the start id on numbered above `after`
 * (XRANGE's shape: `[id, [field, value, …]]`), fences left out.
 */
export const SINCE = `
if ARGV[1] ~= '' then redis.pcall('XADD', KEYS[1], ARGV[1], 'f', '1') end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
local after = tonumber(ARGV[3])
local out = {}
for _, entry in ipairs(redis.call('XRANGE', KEYS[1], ARGV[2], '+')) do
  if tonumber(string.match(entry[1], '-(%d+)$')) > after then out[#out + 1] = entry end
end
return out
`;

/** The epoch of the stream's last id (kept after trims; the stream must exist): XINFO's last-generated-id. */
const LAST_EPOCH = `
local function lastEpoch(key)
  local info = redis.call('XINFO', 'STREAM', key)
  for i = 1, #info, 2 do
    if info[i] == 'last-generated-id' then return tonumber(string.match(info[i + 1], '^(%d+)-')) end
  end
  return 0
end
`;

/**
 * KEYS: inputLog(code). ARGV: epoch, min id (`<epoch>-<n + 1>`), ttlMs. Drops every entry below the
 * min id and refreshes the expiry, unless the stream's last id is of a higher epoch (a deposed
 * owner's trim could take inputs its successor has not read yet): 1 trimmed, 0 no stream, -1 fenced.
 */
export const COVER = LAST_EPOCH + `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if lastEpoch(KEYS[1]) > tonumber(ARGV[1]) then return -1 end
redis.call('XTRIM', KEYS[1], 'MINID', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** KEYS: inputLog(code). ARGV: epoch. Deletes the stream unless its last id is of a higher epoch: 1 deleted, 0 not. */
export const DROP = LAST_EPOCH + `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if lastEpoch(KEYS[1]) > tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
return 1
`;

/** The scripts above as the adapter calls them (`conn.scripts(INPUT_LOG_SCRIPTS)` defines them on the command connection). */
export interface InputLogScripts {
  /** The number of keys first, then the keys, ttlMs and each input's arguments (arrays are flattened by ioredis). */
  odsInputAppend(numberOfKeys: number, keys: string[], ttlMs: number, inputs: Arg[]): Promise<(number | string)[]>;
  odsInputSince(key: string, fence: string, start: string, after: number, ttlMs: number): Promise<[string, string[]][]>;
  odsInputCover(key: string, epoch: number, minId: string, ttlMs: number): Promise<number>;
  odsInputDrop(key: string, epoch: number): Promise<number>;
}

export const INPUT_LOG_SCRIPTS: ScriptDefinitions<InputLogScripts> = {
  odsInputAppend: { lua: APPEND },
  odsInputSince: { numberOfKeys: 1, lua: SINCE },
  odsInputCover: { numberOfKeys: 1, lua: COVER },
  odsInputDrop: { numberOfKeys: 1, lua: DROP },
};
