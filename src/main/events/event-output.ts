// Match events out of the service (README, "Events, webhooks and records"; docs/events.md): the
// journal that numbers and keeps them, webhook delivery, the live stream (GET /events) and the
// records. Built once by the composition root (service.ts) with EVENTS_ENABLED; the shards' outputs
// hand each derived event to the journal itself (matches/shard-output.ts).
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DerivedEvent } from '../../protocol/match-events.js';
import type { OutboundReport } from '../backend/index.js';
import { ConfigError, type Config } from '../base/config.js';
import type { Logger } from '../base/log.js';
import type { EventOutbox } from './event-outbox.js';
import { isRehearsal, type MatchDirectory, type OutputLeases } from '../matches/index.js';
import type { DeadLetterStore, RecordStore } from './record-store.js';
import { WebhookDelivery } from './delivery.js';
import type { WebhookEndpointStore } from './webhook-endpoint-store.js';
import { EndpointBook } from './endpoint-book.js';
import { EndpointError, parseEndpoint, viewOf, type EndpointView, type WebhookEndpoint } from './endpoints.js';
import { EventJournal } from './journal.js';
import type { JournalFiles } from './journal-files.js';
import { watchOperational, type OperationalDeps } from './operational.js';
import type { OutputDelays } from '../output-delay/index.js';
import { Redelivery, withIds, type DeadLetterView, type RedeliverOutcome } from './redeliver.js';
import { EventStream } from './stream.js';
import { retryingDeadLetters, retryingRecords, WriteRetry } from './write-retry.js';

export interface EventOutput {
  readonly journal: EventJournal;
  readonly stream: EventStream;
  readonly delivery: WebhookDelivery;
  /** The ended matches' records (GET /admin/records). */
  readonly records: RecordStore;
  readonly readTokens: readonly string[];
  /** An operational event of the match running under this code (none when no match runs here yet). */
  note: OperationalDeps['note'];
  /** Starts the operational events (operational.ts); close() stops them. */
  watch(deps: Omit<OperationalDeps, 'note'>): void;
  endpoints(): (EndpointView & { stats: unknown })[];
  /** Adds an endpoint from an admin request, kept before it resolves: the endpoint with its secret (shown once); rejects with EndpointError, or the store's error. */
  addEndpoint(body: unknown): Promise<WebhookEndpoint>;
  /** Removes an endpoint added through the admin API (from the store first): false when there is none with this id. */
  removeEndpoint(id: string): Promise<boolean>;
  /** The kept dead letters, oldest first, each with its id (every node's with REDIS_URL). */
  deadLetters(): Promise<DeadLetterView[]>;
  /** Sends a dead letter's event again to its endpoint (redeliver.ts). */
  redeliver(id: string): Promise<RedeliverOutcome>;
  close(): void;
}

export interface EventOutputDeps {
  config: Config;
  log: Logger;
  directory: MatchDirectory;
  /** Every webhook call's outcome, for the metrics. */
  report?: OutboundReport;
  /** The outbox shared by the nodes (REDIS_URL: redis-ports.ts), or null (the files only). */
  shared?: EventOutbox | null;
  /** The journal's files (`events/` under STATE_DIR or DATA_DIR), and the embedded EventOutbox on them (events/adapters/state-dir/event-outbox.ts). */
  files: JournalFiles;
  fileOutbox: EventOutbox;
  /** The records and dead letters: shared by the nodes (REDIS_URL), or on this node's files (events/adapters/state-dir/record-store.ts). */
  records: RecordStore;
  deadLetters: DeadLetterStore;
  /** The per-match output delays (output-delays.ts): a delayed match's events are handed on once due (delay-gate.ts). */
  delays?: OutputDelays;
  /** The endpoints added through the admin API (endpoint-book.ts; closed with the output), or none (memory only). */
  endpointBook?: EndpointBook;
  /** REDIS_URL: this node's id (the webhooks' `x-ods-node`), its epoch of a code it runs, its lease's time left, and the matches' outputs leases (journal.ts). */
  node?: { id: string; epochOf(groupCode: string): number | undefined; leaseLeftMs(groupCode: string): number; outputs: OutputLeases };
}

/**
 * The event output, its admin-added webhook endpoints read first (endpoint-book.ts; an unreadable
 * store stops the start), from the store the composition root gives: Redis's (REDIS_URL: shared,
 * read again by every node), else DATA_DIR/webhook-endpoints.json.
 */
export async function openEventOutput({ endpointStore, ...deps }: Omit<EventOutputDeps, 'endpointBook'> & { endpointStore: WebhookEndpointStore }): Promise<EventOutput> {
  return createEventOutput({ ...deps, endpointBook: await EndpointBook.open(endpointStore, { shared: Boolean(deps.shared), log: deps.log }) });
}

export function createEventOutput({ config, log, directory, report, shared = null, delays, endpointBook, node, files, fileOutbox, ...kept }: EventOutputDeps): EventOutput {
  // Records and dead letters whose write failed (Redis unreachable) are written again until they land.
  const recordRetry = new WriteRetry({ log: log.child({ module: 'events' }), what: 'match record' });
  const letterRetry = new WriteRetry({ log: log.child({ module: 'webhooks' }), what: 'dead letter' });
  const records = retryingRecords(kept.records, recordRetry);
  const deadLetters = retryingDeadLetters(kept.deadLetters, letterRetry);
  const journal = new EventJournal({ files, shared, records, log, resumeWindowMs: config.EVENTS_RESUME_WINDOW_MS, retentionMs: config.EVENTS_RETENTION_MS, ...(delays ? { delayMs: (code: string) => delays.delayMs(code) } : {}),
    ...(node ? { epochOf: (code: string) => node.epochOf(code), leaseLeftMs: (code: string) => node.leaseLeftMs(code), outputs: node.outputs } : {}) });
  const stopDelays = delays?.onChange((code) => journal.delayChanged(code)) ?? (() => {});
  const cursors = files.deliveryCursors();
  const delivery = new WebhookDelivery({
    // A request starts only while the node's lease (or outputs lease) of its match lasts longer than the
    // request's timeout (delivery.ts), so with REDIS_URL that timeout is at most half the lease TTL
    // (a renewed lease has two thirds of it left, less the renewal's round trip).
    journal, log, cursors, shared, ...(report ? { report } : {}), deadLetters, retryForMs: config.WEBHOOK_RETRY_FOR_MS,
    retryFirstMs: config.WEBHOOK_RETRY_FIRST_MS, retryMaxMs: config.WEBHOOK_RETRY_MAX_MS,
    timeoutMs: shared && node ? Math.min(config.OUTBOUND_TIMEOUT_MS, Math.floor(config.REDIS_LEASE_TTL_MS / 2)) : config.OUTBOUND_TIMEOUT_MS,
    ...(node ? { nodeId: node.id } : config.NODE_ID ? { nodeId: config.NODE_ID } : {}),
    save: (c) => files.saveJson('deliveries', c),
    batches: { kept: files.loadJson<Record<string, [string, number][]>>('batches', {}), save: (b) => files.saveJson('batches', b) },
  });
  const endpoints = new Map<string, WebhookEndpoint>();
  const makeId = () => `wh_${randomBytes(6).toString('hex')}`;
  for (const raw of config.WEBHOOKS) {
    let endpoint: WebhookEndpoint;
    try {
      endpoint = parseEndpoint(raw, 'setting', makeId);
    } catch (err) {
      throw new ConfigError(`WEBHOOKS: ${(err as Error).message}`);
    }
    if (endpoints.has(endpoint.id)) throw new ConfigError(`WEBHOOKS: endpoint id ${endpoint.id} is used twice`);
    endpoints.set(endpoint.id, endpoint);
  }
  // The endpoints added through the admin API (kept: endpoint-book.ts); one under a setting's id is not used.
  const applyKept = (id: string, endpoint: WebhookEndpoint | null) => {
    if (endpoints.get(id)?.source === 'setting') {
      if (endpoint) log.warn({ endpoint: id }, 'webhook endpoint added through the admin API has the id of one in WEBHOOKS: the setting\'s is used');
      return;
    }
    if (endpoint) {
      endpoints.set(id, endpoint);
      delivery.add(endpoint);
    } else if (endpoints.delete(id)) delivery.remove(id);
  };
  for (const endpoint of endpointBook?.all() ?? []) applyKept(endpoint.id, endpoint);
  const stopBook = endpointBook?.onChange(applyKept) ?? (() => {});
  for (const endpoint of endpoints.values()) if (endpoint.source === 'setting') delivery.add(endpoint);
  delivery.releaseDelivered();
  delivery.prune();
  const pruneTimer = setInterval(() => delivery.prune(), 3_600_000).unref();
  const stream = new EventStream(journal, config.EVENTS_MAX_STREAMS);
  const redelivery = new Redelivery({
    journal, deadLetters, outboxes: shared ? [shared, fileOutbox] : [fileOutbox], endpoint: (id) => endpoints.get(id),
    timeoutMs: config.OUTBOUND_TIMEOUT_MS, ...(report ? { report } : {}),
  });
  let stopWatching = () => {};
  // An operational event (operational.ts) of a match; the shards' events go to the journal straight from matches/shard-output.ts.
  const take = (groupCode: string, matchKey: string, matchId: string, event: DerivedEvent): void => {
    const record = directory.get(groupCode);
    // A rehearsal is never a real match to anyone outside (README, "Rehearsals"): no event, webhook or record.
    if (isRehearsal(record)) return;
    journal.add(groupCode, matchKey, matchId, record?.organizationId ?? '', event);
  };

  return {
    journal, stream, delivery, records, readTokens: config.EVENTS_READ_TOKEN,
    note(groupCode, type, data, at) {
      const running = journal.runningOf(groupCode);
      if (!running) return;
      // Order -1: never taken for a repeat of a shard's event (journal.ts).
      take(groupCode, running.matchKey, directory.get(groupCode)?.matchId ?? '', { type, at, round: running.round, order: -1, data });
    },
    watch(deps) {
      stopWatching();
      stopWatching = watchOperational({ ...deps, note: (...args) => this.note(...args) });
    },
    endpoints: () => [...endpoints.values()].map((e) => ({ ...viewOf(e), stats: delivery.statsOf(e.id) })),
    async addEndpoint(body) {
      const endpoint: WebhookEndpoint = { ...parseEndpoint(body, 'admin', makeId), createdAt: Date.now() };
      if (endpoints.has(endpoint.id)) throw new EndpointError(`id: ${endpoint.id} is taken`);
      if (endpointBook) await endpointBook.add(endpoint); // applied through applyKept
      else applyKept(endpoint.id, endpoint);
      return endpoint;
    },
    async removeEndpoint(id) {
      const endpoint = endpoints.get(id);
      if (endpoint?.source === 'setting') throw new EndpointError(`${id} is in the WEBHOOKS setting: remove it there`);
      if (endpointBook) return endpointBook.remove(id);
      if (!endpoint) return false;
      applyKept(id, null);
      return true;
    },
    deadLetters: async () => withIds(await deadLetters.list()),
    redeliver: (id) => redelivery.redeliver(id),
    close() {
      stopWatching();
      stopDelays();
      stopBook();
      endpointBook?.close();
      recordRetry.close();
      letterRetry.close();
      clearInterval(pruneTimer);
      stream.close();
      delivery.close();
      journal.close();
      // Redis's adapters are closed with the connection (service.ts); the files' close nothing of their own.
      if (!kept.records) records.close();
      if (!kept.deadLetters) deadLetters.close();
    },
  };
}
