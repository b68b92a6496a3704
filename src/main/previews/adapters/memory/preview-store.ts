// PreviewStore in memory (previews/preview-store.ts): one ExpiringMap with a single timer for the
// oldest entry; the byte count follows every store and expiry.
import type { PreviewCreate, PreviewPut, PreviewStore } from '../../preview-store.js';
import { ExpiringMap } from '../../../base/expiring-map.js';

export interface MemoryPreviewStoreOptions {
  ttlMs: number;
  maxEntries: number;
  /** Sum of the stored JSON texts' lengths (UTF-16 units ≈ bytes for this data). */
  maxBytes: number;
  /** Monotonic milliseconds; injectable for tests. */
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

  put(code: string, json: string): PreviewPut {
    return this.store(code, json, false) as PreviewPut; // never 'exists' without onlyIfAbsent
  }

  create(code: string, json: string): PreviewCreate {
    return this.store(code, json, true);
  }

  /** One step, so nothing can come between the check and the write. */
  private store(code: string, json: string, onlyIfAbsent: boolean): PreviewCreate {
    this.map.sweep();
    const previous = this.map.get(code);
    if (onlyIfAbsent && previous !== undefined) return 'exists';
    const count = this.map.size - (previous === undefined ? 0 : 1) + 1;
    const bytes = this.bytes - (previous?.length ?? 0) + json.length;
    if (count > this.options.maxEntries || bytes > this.options.maxBytes) return 'full';
    this.map.set(code, json);
    this.bytes = bytes;
    return 'stored';
  }

  get(code: string): string | undefined {
    return this.map.get(code);
  }

  async size(): Promise<number> {
    this.map.sweep();
    return this.map.size;
  }

  /** Entries in memory, expired ones not yet swept included (tests). */
  get held(): number {
    return this.map.size;
  }

  /** Bytes held (tests). */
  get storedBytes(): number {
    return this.bytes;
  }

  close(): void {
    this.map.close();
  }
}
