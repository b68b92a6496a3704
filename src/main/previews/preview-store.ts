// PreviewStore: preview code → preview record (its JSON text), for PREVIEW_TTL_MS from its
// creation (reads do not extend it), bounded by count (PREVIEW_MAX) and bytes (PREVIEW_MAX_BYTES).
// PUT /createPreview writes, GET /preview/:code reads (docs/interface.md 4.2, 4.3).
//
// put, create and get are Awaitable (base/awaitable.ts): the memory adapter answers in the same
// turn (PUT /createPreview then answers inside uWS's data callback, no promise turns), a shared
// adapter (Redis: SET code json PX ttl; `create` is SET NX) over the network.
// Adapters: previews/adapters/memory/preview-store.ts. Contract: test/main/previews/preview-store.contract.ts.
import type { Awaitable } from '../base/awaitable.js';

export type PreviewPut = 'stored' | 'full';
export type PreviewCreate = 'stored' | 'exists' | 'full';

export interface PreviewStore {
  /**
   * A preview under a code the client chose: stored, or replacing the one under that code; its
   * life starts now. 'full' (nothing stored) when the count or byte bound would be passed.
   */
  put(code: string, json: string): Awaitable<PreviewPut>;
  /**
   * A preview under a code the service generated: stored only if no live preview has the code,
   * atomically (of two creations of one code, exactly one stores it; the other gets 'exists').
   */
  create(code: string, json: string): Awaitable<PreviewCreate>;
  /** The record's JSON text; undefined when unknown or expired. Codes match exactly as given. */
  get(code: string): Awaitable<string | undefined>;
  /** Live previews. */
  size(): Promise<number>;
  /** Stops the adapter's timers and connections. */
  close(): void;
}
