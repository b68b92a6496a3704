// The records' and dead letters' Lua (events/adapters/redis/record-store.ts), with the names and
// signatures its adapter calls them by (at the end). A record is a hash (keys.record: `s` its summary's JSON, `r` the record, `g` its
// group code) that expires at the end of its retention; the index (keys.recordIndex) is a sorted
// set, matchKey → storedAt (epoch ms). The dead letters are a capped list (keys.deadLetters).
import type { ScriptDefinitions } from '../../../../redis/connection.js';
import { FENCE } from './event-outbox.js';

/** KEYS: record, index, fence, lease. ARGV: matchKey, storedAt ms, summary, record, groupCode, ttlMs, cutoff ms, epoch ('': unfenced), fence ttlMs. 1: kept; -1: fenced (lua/event-outbox.ts). */
export const PUT = FENCE + `
if ARGV[8] ~= '' and fenced(KEYS[3], KEYS[4], tonumber(ARGV[8]), '1', ARGV[9]) then return -1 end
redis.call('HSET', KEYS[1], 's', ARGV[3], 'r', ARGV[4], 'g', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ARGV[6])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[7])
return 1
`;

/**
 * KEYS: index. ARGV: the records' key prefix, cutoff ms, groupCode ('' for any), limit (0: all).
 * The summaries stored at or after the cutoff, newest first (a record whose hash expired is skipped).
 */
export const LIST = `
local out = {}
local limit = tonumber(ARGV[4])
for _, m in ipairs(redis.call('ZREVRANGEBYSCORE', KEYS[1], '+inf', ARGV[2])) do
  local v = redis.call('HMGET', ARGV[1] .. m, 's', 'g')
  if v[1] and (ARGV[3] == '' or v[2] == ARGV[3]) then
    out[#out + 1] = v[1]
    if limit > 0 and #out >= limit then break end
  end
end
return out
`;

/** KEYS: index. ARGV: the records' key prefix, cutoff ms. The records stored before the cutoff removed; how many. */
export const PRUNE = `
local old = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[2])
for _, m in ipairs(old) do redis.call('DEL', ARGV[1] .. m) end
if #old > 0 then redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[2]) end
return #old
`;

/** KEYS: dead letters. ARGV: the letter's JSON, max, ttlMs. Appended, the oldest past max dropped. */
export const DEAD_ADD = `
redis.call('RPUSH', KEYS[1], ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** KEYS: dead letters. Every one, oldest first. */
export const DEAD_LIST = `
return redis.call('LRANGE', KEYS[1], 0, -1)
`;

/** KEYS: dead letters. ARGV: endpointId, eventId. Removes every dead letter of that event to that endpoint; answers how many. */
export const DEAD_REMOVE = `
local n = 0
for _, text in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  local ok, l = pcall(cjson.decode, text)
  if ok and type(l) == 'table' and l.endpointId == ARGV[1] and l.eventId == ARGV[2] then n = n + redis.call('LREM', KEYS[1], 0, text) end
end
return n
`;

/** The scripts above as the adapter calls them (`conn.scripts(RECORDS_SCRIPTS)` defines them on the command connection). */
export interface RecordsScripts {
  odsRecordPut(record: string, index: string, fence: string, lease: string, matchKey: string, storedAt: number, summary: string, body: string | Buffer, groupCode: string, ttlMs: number, cutoff: number, epoch: number | '', fenceTtlMs: number): Promise<number>;
  odsRecordList(index: string, recordPrefix: string, cutoff: number, groupCode: string, limit: number): Promise<string[]>;
  odsRecordPrune(index: string, recordPrefix: string, cutoff: number): Promise<number>;
  odsDeadLetterAdd(list: string, json: string, max: number, ttlMs: number): Promise<number>;
  odsDeadLetterList(list: string): Promise<string[]>;
  odsDeadLetterRemove(key: string, endpointId: string, eventId: string): Promise<number>;
}

export const RECORDS_SCRIPTS: ScriptDefinitions<RecordsScripts> = {
  odsRecordPut: { numberOfKeys: 4, lua: PUT },
  odsRecordList: { numberOfKeys: 1, lua: LIST },
  odsRecordPrune: { numberOfKeys: 1, lua: PRUNE },
  odsDeadLetterAdd: { numberOfKeys: 1, lua: DEAD_ADD },
  odsDeadLetterList: { numberOfKeys: 1, lua: DEAD_LIST },
  odsDeadLetterRemove: { numberOfKeys: 1, lua: DEAD_REMOVE },
};
