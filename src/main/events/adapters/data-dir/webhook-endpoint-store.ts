// WebhookEndpointStore of DATA_DIR (events/webhook-endpoint-store.ts): in memory, kept in a file when given one
// (the embedded default: DATA_DIR/webhook-endpoints.json, operator data like the schedule): read at
// construction, written after every change atomically and owner-only (base/atomic-file.ts: the
// file holds the endpoints' secrets, which sign the deliveries), so an endpoint is on disk before
// the operator is answered. A few writes a day.
import { readVersionedFile, writeFileAtomicSync } from '../../../base/atomic-file.js';
import type { EndpointAdd, KeptEndpoint, WebhookEndpointStore } from '../../webhook-endpoint-store.js';

/** The file of the embedded default's admin-added webhook endpoints, in DATA_DIR. */
export const WEBHOOK_ENDPOINTS_FILE = 'webhook-endpoints.json';

const FILE_VERSION = 1;

export class DataDirWebhookEndpointStore implements WebhookEndpointStore {
  private readonly endpoints = new Map<string, KeptEndpoint>();
  private changes = 0;

  /** `file`: where the endpoints are kept (null: memory only). An unreadable file stops the start. */
  constructor(private readonly file: string | null = null) {
    if (file === null) return;
    const endpoints = readVersionedFile(file, 'a webhook endpoints file', FILE_VERSION, 'endpoints', 'the endpoints added through the admin API');
    if (endpoints !== undefined && !Array.isArray(endpoints)) throw new Error(`${file}: not a webhook endpoints file of version ${FILE_VERSION}`);
    // Each entry is checked by its reader (events/endpoint-book.ts), which skips a bad one.
    for (const e of (endpoints ?? []) as KeptEndpoint[]) if (typeof e?.id === 'string') this.endpoints.set(e.id, e);
  }

  async all(): Promise<KeptEndpoint[]> {
    return [...this.endpoints.values()].map((e) => structuredClone(e));
  }

  async add(endpoint: KeptEndpoint, max: number): Promise<EndpointAdd> {
    if (this.endpoints.has(endpoint.id)) return { ok: false, reason: 'exists' };
    if (this.endpoints.size >= max) return { ok: false, reason: 'full' };
    this.endpoints.set(endpoint.id, structuredClone(endpoint));
    this.save();
    return { ok: true };
  }

  async remove(id: string): Promise<boolean> {
    if (!this.endpoints.delete(id)) return false;
    this.save();
    return true;
  }

  async revision(): Promise<number> {
    return this.changes;
  }

  close(): void {}

  private save(): void {
    this.changes++;
    if (this.file !== null) writeFileAtomicSync(this.file, JSON.stringify({ version: FILE_VERSION, endpoints: [...this.endpoints.values()] }));
  }
}
