// PreviewStore on Redis (previews/preview-store.ts), shared by every node. Each record's JSON text is
// under keys.preview(code), expiring at its creation + PREVIEW_TTL_MS (PXAT, Redis's own clock).
// The count and byte bounds hold across nodes because every write is one script that, on Redis's
// clock (TIME): drops the expired codes from the index (a sorted set of codes by expiry time) and
// their sizes from the hash of sizes and from the running total, then checks the bounds, then stores.
// A record's key and its index entry carry the same expiry time, so they leave together.
//
// Sizes are the JSON text's UTF-8 bytes (what Redis holds); the memory adapter counts UTF-16 units,
// the same for the ASCII this data mostly is. The scripts: lua/previews.ts.
import type { PreviewCreate, PreviewPut, PreviewStore } from '../../preview-store.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { PREVIEWS_SCRIPTS } from './lua/previews.js';

export interface RedisPreviewStoreOptions {
  ttlMs: number;
  maxEntries: number;
  maxBytes: number;
}

export class RedisPreviewStore implements PreviewStore {
  /** The command connection with this store's scripts (lua/previews.ts). */
  private get lua() { return this.conn.scripts(PREVIEWS_SCRIPTS); }

  constructor(private readonly conn: RedisConnection, private readonly options: RedisPreviewStoreOptions) {}

  async put(code: string, json: string): Promise<PreviewPut> {
    return (await this.store(code, json, false)) as PreviewPut; // never 'exists' without onlyIfAbsent
  }

  create(code: string, json: string): Promise<PreviewCreate> {
    return this.store(code, json, true);
  }

  private async store(code: string, json: string, onlyIfAbsent: boolean): Promise<PreviewCreate> {
    const k = this.conn.keys;
    const { ttlMs, maxEntries, maxBytes } = this.options;
    const result = await this.lua.odsPreviewStore(k.preview(code), k.previewIndex, k.previewBytes, k.previewTotalBytes,
      code, json, Buffer.byteLength(json), ttlMs, maxEntries, maxBytes, onlyIfAbsent ? '1' : '0');
    if (result !== 'stored' && result !== 'exists' && result !== 'full') throw new Error(`preview script answered ${String(result)}`);
    return result;
  }

  async get(code: string): Promise<string | undefined> {
    return (await this.conn.cmd.get(this.conn.keys.preview(code))) ?? undefined;
  }

  async size(): Promise<number> {
    const k = this.conn.keys;
    return this.lua.odsPreviewSize(k.previewIndex, k.previewIndex, k.previewBytes, k.previewTotalBytes);
  }

  /** No timers or subscriptions of its own; the connection is the composition root's. */
  close(): void {}
}
