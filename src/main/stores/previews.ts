// Preview store: preview code → preview record (as JSON text), PREVIEW_TTL_MS from its last
// creation, not extended by reads. Bounded by count and by bytes.
//
// The port is asynchronous so that a shared adapter (Redis: SET code json PX ttl, with the count
// bound kept by the adapter) can replace the memory one without touching the routes.
import { ExpiringMap } from './expiring-map.js';

export type PutResult = 'stored' | 'full';

export interface PreviewStore {
  /** Stores or replaces the record under `code`; its life starts now. 'full' when the bounds are reached. */
  put(code: string, json: string): Promise<PutResult>;
  /** The record's JSON text, or undefined when unknown or expired. Codes are matched exactly as given. */
  get(code: string): Promise<string | undefined>;
  /** Live previews. */
  size(): Promise<number>;
  close(): void;
}

export interface MemoryPreviewStoreOptions {
  ttlMs: number;
  maxEntries: number;
  /** Sum of the stored JSON texts' lengths (UTF-16 units ≈ bytes for this data). */
  maxBytes: number;
  now?: () => number;
}

export class MemoryPreviewStore implements PreviewStore {
  private readonly map: ExpiringMap<string>;
  private bytes = 0;

  constructor(private readonly options: MemoryPreviewStoreOptions) {
    this.map = new ExpiringMap<string>({
      ttlMs: options.ttlMs,
      now: options.now,
      sweep: 'head',
      onExpire: (_code, json) => { this.bytes -= json.length; },
    });
  }

  async put(code: string, json: string): Promise<PutResult> {
    this.map.sweep();
    const previous = this.map.get(code);
    const count = this.map.size - (previous === undefined ? 0 : 1) + 1;
    const bytes = this.bytes - (previous?.length ?? 0) + json.length;
    if (count > this.options.maxEntries || bytes > this.options.maxBytes) return 'full';
    this.map.set(code, json);
    this.bytes = bytes;
    return 'stored';
  }

  async get(code: string): Promise<string | undefined> {
    return this.map.get(code);
  }

  async size(): Promise<number> {
    this.map.sweep();
    return this.map.size;
  }

  /** Entries in memory, expired ones not yet swept included (for tests and metrics). */
  get held(): number {
    return this.map.size;
  }

  /** Bytes held (for tests and metrics). */
  get storedBytes(): number {
    return this.bytes;
  }

  close(): void {
    this.map.close();
  }
}
