// WebhookEndpointStore on Redis (events/webhook-endpoint-store.ts), shared by every node: one hash
// (keys.webhookEndpoints), id → the endpoint's JSON (its secret included: deliveries are signed with
// it), without expiry (operator data; Redis's own persistence keeps it across a Redis restart), and a
// revision counter every write increments (each node's view, events/endpoint-book.ts, reads the
// hash again only when it moved). Add and remove are one script each (lua/webhook-endpoints.ts).
import type { EndpointAdd, KeptEndpoint, WebhookEndpointStore } from '../../webhook-endpoint-store.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { WEBHOOK_ENDPOINTS_SCRIPTS } from './lua/webhook-endpoints.js';

export class RedisWebhookEndpointStore implements WebhookEndpointStore {
  /** The command connection with this store's scripts (lua/webhook-endpoints.ts). */
  private get lua() { return this.conn.scripts(WEBHOOK_ENDPOINTS_SCRIPTS); }

  constructor(private readonly conn: RedisConnection) {}

  async all(): Promise<KeptEndpoint[]> {
    const raw = await this.conn.cmd.hgetall(this.conn.keys.webhookEndpoints);
    const out: KeptEndpoint[] = [];
    // A text that does not parse is skipped here; its fields are checked by the reader (endpoint-book.ts).
    for (const text of Object.values(raw)) try { out.push(JSON.parse(text) as KeptEndpoint); } catch { /* skipped */ }
    return out;
  }

  async add(endpoint: KeptEndpoint, max: number): Promise<EndpointAdd> {
    const { keys } = this.conn;
    const answer = await this.lua.odsEndpointAdd(keys.webhookEndpoints, keys.webhookEndpointsRevision, endpoint.id, JSON.stringify(endpoint), max);
    return answer === 'ok' ? { ok: true } : { ok: false, reason: answer === 'full' ? 'full' : 'exists' };
  }

  async remove(id: string): Promise<boolean> {
    const { keys } = this.conn;
    return (await this.lua.odsEndpointRemove(keys.webhookEndpoints, keys.webhookEndpointsRevision, id)) === 1;
  }

  async revision(): Promise<number> {
    return Number(await this.conn.cmd.get(this.conn.keys.webhookEndpointsRevision) ?? 0);
  }

  /** No timers or subscriptions of its own; the connection is the composition root's. */
  close(): void {}
}
