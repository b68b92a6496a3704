// PreviewStore on Redis (ports/preview-store.ts), shared by every node. Each record's JSON text is
// under keys.preview(code), expiring at its creation + PREVIEW_TTL_MS (PXAT, Redis's own clock).
// The count and byte bounds hold across nodes because every write is one script that, on Redis's
// clock (TIME): drops the expired codes from the index (a sorted set of codes by expiry time) and
// their sizes from the hash of sizes and from the running total, then checks the bounds, then stores.
// A record's key and its index entry carry the same expiry time, so they leave together.
//
// Sizes are the JSON text's UTF-8 bytes (what Redis holds); the memory adapter counts UTF-16 units,
// the same for the ASCII this data mostly is.
import type { PreviewCreate, PreviewPut, PreviewStore } from '../../ports/preview-store.js';
import type { Result } from 'ioredis';
import type { RedisConnection } from './connection.js';

export interface RedisPreviewStoreOptions {
  ttlMs: number;
  maxEntries: number;
  maxBytes: number;
}

/**
 * Drops expired index entries (in batches: `unpack` has a stack limit); `now` on Redis's clock. An
 * entry whose expiry is `now` is live, as Redis's own key (expired when now > its time).
 */
const PRUNE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
while true do
  local gone = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. now, 'LIMIT', 0, 500)
  if #gone == 0 then break end
  local sizes = redis.call('HMGET', KEYS[3], unpack(gone))
  local freed = 0
  for i = 1, #sizes do freed = freed + (tonumber(sizes[i]) or 0) end
  redis.call('ZREM', KEYS[2], unpack(gone))
  redis.call('HDEL', KEYS[3], unpack(gone))
  if freed > 0 then redis.call('DECRBY', KEYS[4], freed) end
end
`;

/**
 * KEYS: preview(code), previewIndex, previewBytes, previewTotalBytes.
 * ARGV: code, json, size, ttlMs, maxEntries, maxBytes, onlyIfAbsent ('1'/'0').
 */
const STORE = `${PRUNE}
local code, json, size = ARGV[1], ARGV[2], tonumber(ARGV[3])
local ttl, maxEntries, maxBytes = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local live = redis.call('ZSCORE', KEYS[2], code) ~= false
if ARGV[7] == '1' and (live or redis.call('EXISTS', KEYS[1]) == 1) then return 'exists' end
local previous = 0
if live then previous = tonumber(redis.call('HGET', KEYS[3], code)) or 0 end
local count = redis.call('ZCARD', KEYS[2]) + (live and 0 or 1)
local bytes = (tonumber(redis.call('GET', KEYS[4])) or 0) - previous + size
if count > maxEntries or bytes > maxBytes then return 'full' end
local expiry = now + ttl
redis.call('SET', KEYS[1], json, 'PXAT', expiry)
redis.call('ZADD', KEYS[2], expiry, code)
redis.call('HSET', KEYS[3], code, size)
redis.call('SET', KEYS[4], bytes)
return 'stored'
`;

/** KEYS: previewIndex, previewIndex, previewBytes, previewTotalBytes (PRUNE's numbering). Live count. */
const SIZE = `${PRUNE}
return redis.call('ZCARD', KEYS[2])
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    odsPreviewStore(key: string, index: string, sizes: string, total: string, code: string, json: string, size: number,
      ttlMs: number, maxEntries: number, maxBytes: number, onlyIfAbsent: '0' | '1'): Result<string, Context>;
    odsPreviewSize(unused: string, index: string, sizes: string, total: string): Result<number, Context>;
  }
}

export class RedisPreviewStore implements PreviewStore {
  constructor(private readonly conn: RedisConnection, private readonly options: RedisPreviewStoreOptions) {
    conn.cmd.defineCommand('odsPreviewStore', { numberOfKeys: 4, lua: STORE });
    conn.cmd.defineCommand('odsPreviewSize', { numberOfKeys: 4, lua: SIZE });
  }

  async put(code: string, json: string): Promise<PreviewPut> {
    return (await this.store(code, json, false)) as PreviewPut; // never 'exists' without onlyIfAbsent
  }

  create(code: string, json: string): Promise<PreviewCreate> {
    return this.store(code, json, true);
  }

  private async store(code: string, json: string, onlyIfAbsent: boolean): Promise<PreviewCreate> {
    const k = this.conn.keys;
    const { ttlMs, maxEntries, maxBytes } = this.options;
    const result = await this.conn.cmd.odsPreviewStore(k.preview(code), k.previewIndex, k.previewBytes, k.previewTotalBytes,
      code, json, Buffer.byteLength(json), ttlMs, maxEntries, maxBytes, onlyIfAbsent ? '1' : '0');
    if (result !== 'stored' && result !== 'exists' && result !== 'full') throw new Error(`preview script answered ${String(result)}`);
    return result;
  }

  async get(code: string): Promise<string | undefined> {
    return (await this.conn.cmd.get(this.conn.keys.preview(code))) ?? undefined;
  }

  async size(): Promise<number> {
    const k = this.conn.keys;
    return this.conn.cmd.odsPreviewSize(k.previewIndex, k.previewIndex, k.previewBytes, k.previewTotalBytes);
  }

  /** No timers or subscriptions of its own; the connection is the composition root's. */
  close(): void {}
}
