// The webhook endpoints added through the admin API, as this process sees them (README, "Webhooks";
// docs/events.md, "What is kept where"): a synchronous view of the WebhookEndpointStore
// (events/webhook-endpoint-store.ts: DATA_DIR/webhook-endpoints.json, or with REDIS_URL Redis, shared
// by every node). An endpoint added or removed here is in the store before it applies (and before the
// operator is answered); with a shared store each node reads the store again every second when its
// revision moved, so an endpoint added through any node is used by every node within a second (each
// delivers it its own matches' events stored from the endpoint's creation on: delivery.ts `add`).
// Every entry read from the store is checked again (endpoints.ts parseEndpoint); a bad one is logged
// by id and skipped. Its secret is kept to sign the deliveries and is never logged.
import type { Logger } from '../base/log.js';
import type { WebhookEndpointStore } from './webhook-endpoint-store.js';
import { EndpointError, parseEndpoint, type WebhookEndpoint } from './endpoints.js';

/** The most endpoints added through the admin API (each has its own lanes, agent and connections). */
export const MAX_ADMIN_ENDPOINTS = 100;
/** With a shared store: how often a node checks the store's revision. */
const REFRESH_MS = 1000;

export class EndpointBook {
  private readonly endpoints = new Map<string, WebhookEndpoint>();
  private readonly listeners = new Set<(id: string, endpoint: WebhookEndpoint | null) => void>();
  private revision = -1;
  private readonly timer: NodeJS.Timeout | null;
  private refreshing = false;

  private constructor(private readonly store: WebhookEndpointStore, shared: boolean, private readonly log: Logger, refreshMs: number) {
    this.timer = shared ? setInterval(() => void this.refresh(), refreshMs) : null;
    this.timer?.unref();
  }

  /** The view, read from the store once before the service starts (an unreadable store stops the start). */
  static async open(store: WebhookEndpointStore, options: { shared: boolean; log: Logger; refreshMs?: number }): Promise<EndpointBook> {
    const book = new EndpointBook(store, options.shared, options.log.child({ module: 'webhooks' }), options.refreshMs ?? REFRESH_MS);
    await book.read();
    return book;
  }

  all(): WebhookEndpoint[] {
    return [...this.endpoints.values()];
  }

  /** Keeps a new endpoint (the store first), then applies it; throws EndpointError when its id is taken or the bound is reached. */
  async add(endpoint: WebhookEndpoint): Promise<void> {
    const createdAt = endpoint.createdAt ?? Date.now();
    const { source: _source, ...kept } = { ...endpoint, createdAt };
    const added = await this.store.add(kept, MAX_ADMIN_ENDPOINTS);
    if (!added.ok) throw new EndpointError(added.reason === 'exists' ? `id: ${endpoint.id} is taken` : `at most ${MAX_ADMIN_ENDPOINTS} endpoints can be added through the admin API`);
    // A refresh may have read it from the store meanwhile.
    if (this.endpoints.get(endpoint.id)?.createdAt !== createdAt) this.apply(endpoint.id, { ...endpoint, createdAt });
  }

  /** Removes one (the store first); false when none has this id. */
  async remove(id: string): Promise<boolean> {
    const removed = await this.store.remove(id);
    if (removed || this.endpoints.has(id)) this.apply(id, null);
    return removed;
  }

  /** Told of every endpoint added (with it) or removed (null), here or read from the store. */
  onChange(listener: (id: string, endpoint: WebhookEndpoint | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.listeners.clear();
  }

  private apply(id: string, endpoint: WebhookEndpoint | null): void {
    if (endpoint) this.endpoints.set(id, endpoint);
    else if (!this.endpoints.delete(id)) return;
    for (const listener of this.listeners) listener(id, endpoint);
  }

  /** Every endpoint again, when the store's revision moved (read before them: a write between the two is read next time). */
  private async read(): Promise<void> {
    const revision = await this.store.revision();
    if (revision === this.revision) return;
    const kept = await this.store.all();
    this.revision = revision;
    const seen = new Set<string>();
    for (const raw of kept) {
      let endpoint: WebhookEndpoint;
      try {
        endpoint = { ...parseEndpoint(raw, 'admin', () => ''), createdAt: Number(raw.createdAt) || 0 };
      } catch (err) {
        this.log.error({ endpoint: String(raw.id).slice(0, 64), error: (err as Error).message }, 'webhook endpoint in the store skipped');
        continue;
      }
      seen.add(endpoint.id);
      // An endpoint is never changed in place: one removed and added again under its id (another secret) is another creation.
      const here = this.endpoints.get(endpoint.id);
      if (here?.createdAt === endpoint.createdAt) continue;
      if (here) this.apply(endpoint.id, null);
      this.apply(endpoint.id, endpoint);
    }
    for (const id of [...this.endpoints.keys()]) if (!seen.has(id)) this.apply(id, null);
  }

  private async refresh(): Promise<void> {
    if (this.refreshing) return;
    this.refreshing = true;
    try {
      await this.read();
    } catch (err) {
      this.log.warn({ error: (err as Error).message }, 'webhook endpoints not read from the store (the last ones read hold)');
    } finally {
      this.refreshing = false;
    }
  }
}
