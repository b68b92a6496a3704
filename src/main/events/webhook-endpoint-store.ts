// WebhookEndpointStore: the webhook endpoints added through the admin API (README, "Webhooks";
// events/endpoint-book.ts keeps each process's synchronous view of them). Operator data like the
// schedule: it outlives the process (the embedded default writes DATA_DIR/webhook-endpoints.json
// atomically, owner-only), and with REDIS_URL Redis shares it between nodes, so an endpoint added
// through any node is used by every node. Each endpoint is kept with its secret (deliveries are
// signed with it): the secret is in that file and in Redis, and nowhere else (never in an answer
// after the one that created it, a log line or a metric). A revision that moves with every write
// lets a view read them all again only when they changed.
// Adapters: events/adapters/data-dir/webhook-endpoint-store.ts, events/adapters/redis/webhook-endpoint-store.ts.
// Contract: test/main/events/webhook-endpoint-store.contract.ts.
import type { MatchEventType } from '../../protocol/match-events.js';

export interface KeptEndpoint {
  id: string;
  url: string;
  /** Standard Webhooks secret (`whsec_…`). */
  secret: string;
  /** Event types it wants; empty: all. */
  events: MatchEventType[];
  /** Organisations whose matches it gets; empty: all. */
  organizations: string[];
  /** Group codes whose matches it gets; empty: all (kept before it existed: read as empty). */
  groupCodes: string[];
  /** Several events per delivery, as a JSON array (docs/events.md, "Batched deliveries"); false: one event per delivery. */
  batch: boolean;
  /** When it was added, epoch ms: every node delivers it the events stored from then on. */
  createdAt: number;
}

export type EndpointAdd = { ok: true } | { ok: false; reason: 'exists' | 'full' };

export interface WebhookEndpointStore {
  /** Every kept endpoint, in no particular order. */
  all(): Promise<KeptEndpoint[]>;
  /** Keeps a new endpoint; refused (nothing written) when its id is kept already or `max` are. */
  add(endpoint: KeptEndpoint, max: number): Promise<EndpointAdd>;
  /** Removes it; false when no endpoint has this id. */
  remove(id: string): Promise<boolean>;
  /** A number that changes whenever an endpoint is added or removed. */
  revision(): Promise<number>;
  close(): void;
}
