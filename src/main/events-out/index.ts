// Match events out of the service (README, "Events, webhooks and records"; docs/events.md): the
// journal that numbers and keeps them, webhook delivery, the live stream (GET /events) and the
// records. Built once by the composition root (service.ts) with EVENTS_ENABLED; the shards' outputs
// hand each derived event to `take` (shards/output.ts).
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { DerivedEvent } from '../../protocol/match-events.js';
import type { OutboundReport } from '../backend/http.js';
import { ConfigError, type Config } from '../base/config.js';
import type { Logger } from '../base/log.js';
import type { EventOutbox } from '../ports/event-outbox.js';
import type { MatchDirectory } from '../ports/match-directory.js';
import type { DeadLetter, DeadLetterStore, RecordStore } from '../ports/record-store.js';
import { isRehearsal } from '../ports/rehearsal-marker.js';
import { WebhookDelivery } from './delivery.js';
import { EndpointError, parseEndpoint, viewOf, type EndpointView, type WebhookEndpoint } from './endpoints.js';
import { EventJournal } from './journal.js';
import { JournalFiles } from './journal-files.js';
import { watchOperational, type OperationalDeps } from './operational.js';
import type { OutputDelays } from './output-delays.js';
import { FileDeadLetters, FileRecordStore } from './record-files.js';
import { EventStream } from './stream.js';

export interface EventOutput {
  readonly journal: EventJournal;
  readonly stream: EventStream;
  readonly delivery: WebhookDelivery;
  /** The ended matches' records (GET /admin/records). */
  readonly records: RecordStore;
  readonly readTokens: readonly string[];
  /** One event a shard derived (its output's `match_event`). */
  take(groupCode: string, matchKey: string, matchId: string, event: DerivedEvent): void;
  /** An operational event of the match running under this code (none when no match runs here yet). */
  note: OperationalDeps['note'];
  /** Starts the operational events (operational.ts); close() stops them. */
  watch(deps: Omit<OperationalDeps, 'note'>): void;
  endpoints(): (EndpointView & { stats: unknown })[];
  /** Adds an endpoint from an admin request: the endpoint with its secret (shown once), or throws EndpointError. */
  addEndpoint(body: unknown): WebhookEndpoint;
  removeEndpoint(id: string): boolean;
  /** The kept dead letters, oldest first (every node's with REDIS_URL). */
  deadLetters(): Promise<DeadLetter[]>;
  close(): void;
}

export interface EventOutputDeps {
  config: Config;
  log: Logger;
  directory: MatchDirectory;
  /** Every webhook call's outcome, for the metrics. */
  report?: OutboundReport;
  /** The outbox shared by the nodes (REDIS_URL: cluster/redis-ports.ts), or null (the files only). */
  shared?: EventOutbox | null;
  /** The records and dead letters shared by the nodes (REDIS_URL), or null (the files: record-files.ts). */
  records?: RecordStore | null;
  deadLetters?: DeadLetterStore | null;
  /** The per-match output delays (output-delays.ts): a delayed match's events are handed on once due (delay-gate.ts). */
  delays?: OutputDelays;
}

export function createEventOutput({ config, log, directory, report, shared = null, delays, ...kept }: EventOutputDeps): EventOutput {
  const files = new JournalFiles(path.join(path.resolve(config.STATE_DIR || config.DATA_DIR), 'events'), log);
  const records = kept.records ?? new FileRecordStore(files, config.EVENTS_RETENTION_MS);
  const deadLetters = kept.deadLetters ?? new FileDeadLetters(files);
  const journal = new EventJournal({ files, shared, records, log, resumeWindowMs: config.EVENTS_RESUME_WINDOW_MS, retentionMs: config.EVENTS_RETENTION_MS, ...(delays ? { delayMs: (code: string) => delays.delayMs(code) } : {}) });
  const stopDelays = delays?.onChange((code) => journal.delayChanged(code)) ?? (() => {});
  const cursors = files.deliveryCursors();
  const delivery = new WebhookDelivery({
    journal, log, cursors, shared, ...(report ? { report } : {}), deadLetters, timeoutMs: config.OUTBOUND_TIMEOUT_MS, retryForMs: config.WEBHOOK_RETRY_FOR_MS,
    ...(config.NODE_ID ? { nodeId: config.NODE_ID } : {}),
    save: (c) => files.saveJson('deliveries', c),
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
  for (const endpoint of endpoints.values()) delivery.add(endpoint);
  delivery.releaseDelivered();
  delivery.prune();
  const pruneTimer = setInterval(() => delivery.prune(), 3_600_000).unref();
  const stream = new EventStream(journal, config.EVENTS_MAX_STREAMS);
  let stopWatching = () => {};
  const take: EventOutput['take'] = (groupCode, matchKey, matchId, event) => {
    const record = directory.get(groupCode);
    // A rehearsal is never a real match to anyone outside (README, "Rehearsals"): no event, webhook or record.
    if (isRehearsal(record)) return;
    journal.add(groupCode, matchKey, matchId, record?.organizationId ?? '', event);
  };

  return {
    journal, stream, delivery, records, readTokens: config.EVENTS_READ_TOKEN, take,
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
    addEndpoint(body) {
      const endpoint = parseEndpoint(body, 'admin', makeId);
      if (endpoints.has(endpoint.id)) throw new EndpointError(`id: ${endpoint.id} is taken`);
      endpoints.set(endpoint.id, endpoint);
      delivery.add(endpoint);
      return endpoint;
    },
    removeEndpoint(id) {
      const endpoint = endpoints.get(id);
      if (!endpoint) return false;
      endpoints.delete(id);
      return delivery.remove(id);
    },
    deadLetters: () => deadLetters.list(),
    close() {
      stopWatching();
      stopDelays();
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
