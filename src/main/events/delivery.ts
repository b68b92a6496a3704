// Webhook delivery (docs/events.md, "Delivery guarantees"): at least once, in order per match and
// endpoint. Per endpoint, each match is a lane: one request at a time, the next event only after a 2xx
// for the one before; at most MAX_LANES_IN_FLIGHT requests per endpoint at once. A failed attempt (not
// 2xx, timeout, network) backs the whole endpoint off: 1 s, 2 s, 4 s … up to 30 s (WEBHOOK_RETRY_FIRST_MS,
// WEBHOOK_RETRY_MAX_MS), then one lane probes it, and all lanes go on once a probe succeeds; so a dead
// endpoint costs one attempt per period, whatever the number of matches. An event still undelivered WEBHOOK_RETRY_FOR_MS after it
// was stored is dead-lettered (kept by the DeadLetterStore, listed, shown on the dashboard: on every
// node with REDIS_URL) and its lane goes on. Nothing
// waits for an endpoint on the match's path (the journal stores, then tells this module), and each
// endpoint has its own lanes and agent. The cursors (the last seq handled per endpoint and match) are
// saved as they move, so a restart goes on where it was (a delivery whose cursor was not yet saved is
// sent again). With a shared outbox (REDIS_URL) each cursor also moves there, and a match read from
// it (taken over from a lost node) starts from the cursors found there: the events the lost node had
// not delivered are sent from here. A batch endpoint (docs/events.md, "Batched deliveries") has one request in flight
// at a time, at least BATCH_INTERVAL_MS apart, holding every event due then (several matches, each
// match's in seq order); its pump runs once after the events of one shard cycle were stored.
// With a shared outbox a request for a match starts only while this node may still deliver it for
// longer than the request's timeout (journal.outputsLeftMs: its lease, or its outputs lease, as this node
// knows it), and a cursor move carries the node's epoch (a deposed node's is refused by Redis:
// journal.depose); every request names its node (`x-ods-node`, NODE_ID) so a receiver can tell.
import type { OutboundReport } from '../backend/index.js';
import type { Logger } from '../base/log.js';
import { OutputFencedError, type EventOutbox } from './event-outbox.js';
import type { DeadLetterStore } from './record-store.js';
import { EndpointLanes, type DeliveryStats, type Lane, type Part } from './endpoint-lanes.js';
import { LeaseGate } from './lease-gate.js';
import { batchId, formBatch, pinOf, type BatchSource, type PinnedBatch } from './batch.js';

import { startOf, wants, type WebhookEndpoint } from './endpoints.js';
import type { EventJournal } from './journal.js';
import { keptEvent, type MatchLog } from './match-log.js';
import type { StoredEvent } from './types.js';

const MAX_LANES_IN_FLIGHT = 8;
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;
/** A batch endpoint's requests start at least this far apart: what comes meanwhile waits for the next (at most 4 requests a second). */
const BATCH_INTERVAL_MS = 250;

export interface DeliveryDeps {
  journal: EventJournal;
  /** Every webhook call's outcome (metrics: ods_backend_calls_total{call="webhook"}). */
  report?: OutboundReport;
  timeoutMs: number;
  retryForMs: number;
  /** The back-off after a failed attempt: the first wait, doubling up to the longest (defaults 1 s and 30 s). */
  retryFirstMs?: number;
  retryMaxMs?: number;
  log: Logger;
  /** Cursors to keep (journal-files.ts), or null (memory only). */
  save: ((cursors: Record<string, Record<string, number>>) => void) | null;
  cursors: Record<string, Record<string, number>>;
  /** Where the dead letters go (adapters/state-dir/record-store.ts, or Redis). */
  deadLetters: DeadLetterStore;
  /** The outbox shared by the nodes (REDIS_URL), or null. */
  shared?: EventOutbox | null;
  /** This node's id, sent as `x-ods-node` with every request (REDIS_URL: NODE_ID or the generated one; embedded: NODE_ID when set). */
  nodeId?: string;
  /** The batch endpoints' failed batches (endpoint id → [matchKey, last seq][]), kept so that a restart sends the same batch again (journal-files.ts: batches.json), or none (memory only). */
  batches?: { kept: Record<string, PinnedBatch>; save(batches: Record<string, PinnedBatch>): void };
}

export class WebhookDelivery {
  private readonly endpoints = new Map<string, EndpointLanes>();
  private readonly log: Logger;
  private readonly unsubscribe: () => void;
  private readonly unsubscribeAdopt: () => void;
  /** With a shared outbox, requests start only while this node's lease of their match outlasts them (lease-gate.ts). */
  private readonly leaseGate: LeaseGate;
  private readonly batchSource: BatchSource = {
    match: (matchKey) => this.deps.journal.matches.get(matchKey),
    next: (lanes, match) => this.next(lanes, match),
    mustWait: (lanes, matchKey) => this.leaseGate.mustWait(lanes, matchKey),
    laneOf: (lanes, matchKey) => this.laneOf(lanes, matchKey),
  };

  constructor(private readonly deps: DeliveryDeps) {
    this.log = deps.log.child({ module: 'webhooks' });
    this.leaseGate = new LeaseGate((key) => deps.journal.outputsLeftMs(key), deps.timeoutMs, (lanes) => this.pump(lanes));
    this.unsubscribe = deps.journal.subscribe((stored) => this.onEvent(stored));
    this.unsubscribeAdopt = deps.journal.onAdopt((matchKey, cursors) => this.onAdopt(matchKey, cursors));
    // The journal lets go of a match's events once every endpoint has them (journal.ts, prune; asked per match: no array).
    deps.journal.keepUntilDelivered((key) => { let upTo = Infinity; for (const lanes of this.endpoints.values()) upTo = Math.min(upTo, lanes.cursors[key] ?? 0); return upTo; });
  }

  /** A match read from the shared outbox: each endpoint goes on from the cursor stored there (0: from its first event). */
  private onAdopt(matchKey: string, shared: Record<string, number>): void {
    for (const lanes of this.endpoints.values()) {
      lanes.cursors[matchKey] = Math.max(lanes.cursors[matchKey] ?? 0, shared[lanes.endpoint.id] ?? 0);
      lanes.ready.add(matchKey);
      this.pump(lanes);
    }
    this.persist();
    const match = this.deps.journal.matches.get(matchKey);
    if (match) this.maybeRelease(match); // an ended orphan every endpoint had already
  }

  /**
   * Starts delivering to an endpoint: where it was (saved cursors). One without cursors: an endpoint
   * added through the admin API gets what comes from now on; one of the setting (WEBHOOKS) gets every
   * event still held (live and undelivered matches), because a restart before its first cursor was
   * saved must not skip what it was owed (at least once).
   */
  add(endpoint: WebhookEndpoint): void {
    // A failed batch stays pinned across its endpoint's re-adding (and from the file at a start).
    const pinned = this.endpoints.get(endpoint.id)?.pending ?? this.deps.batches?.kept[endpoint.id] ?? null;
    this.remove(endpoint.id);
    const known = this.deps.cursors[endpoint.id];
    const cursors = known ?? {};
    if (!known && endpoint.source === 'admin') for (const match of this.deps.journal.matches.values()) cursors[match.matchKey] = startOf(endpoint, match);
    this.deps.cursors[endpoint.id] = cursors;
    const lanes = new EndpointLanes(endpoint, cursors, this.deps.timeoutMs, this.deps.report);
    if (endpoint.batch && pinned) this.keepPending(lanes, pinned);
    this.endpoints.set(endpoint.id, lanes);
    for (const match of this.deps.journal.matches.values()) if ((cursors[match.matchKey] ?? 0) < match.events.length) lanes.ready.add(match.matchKey);
    this.persist();
    this.pump(lanes);
  }

  remove(id: string): boolean {
    const lanes = this.endpoints.get(id);
    if (!lanes) return false;
    lanes.stop();
    this.endpoints.delete(id);
    delete this.deps.cursors[id];
    this.persist();
    this.keepPending(lanes, null);
    return true;
  }

  statsOf(id: string): DeliveryStats | undefined {
    const lanes = this.endpoints.get(id);
    if (!lanes) return undefined;
    let waiting = 0;
    for (const match of this.deps.journal.matches.values()) waiting += Math.max(0, match.events.length - (lanes.cursors[match.matchKey] ?? 0));
    return { ...lanes.stats, waiting };
  }

  close(): void {
    this.unsubscribe();
    this.unsubscribeAdopt();
    this.leaseGate.close();
    for (const lanes of this.endpoints.values()) lanes.stop();
    this.endpoints.clear();
  }

  /** The cursors of matches past the retention go (hourly, from index.ts). */
  prune(): void {
    let pruned = false;
    for (const cursors of Object.values(this.deps.cursors)) {
      for (const key of Object.keys(cursors)) if (!this.deps.journal.knows(key)) { delete cursors[key]; pruned = true; }
    }
    if (pruned) this.persist();
  }

  /** Every ended match that every endpoint has leaves memory (journal.release); after a restart too. */
  releaseDelivered(): void {
    for (const match of [...this.deps.journal.matches.values()]) this.maybeRelease(match);
  }

  private onEvent(stored: StoredEvent): void {
    for (const lanes of this.endpoints.values()) {
      lanes.ready.add(stored.matchKey);
      if (!lanes.endpoint.batch) this.pump(lanes);
      else if (!lanes.scheduled) {
        lanes.scheduled = true;
        setImmediate(() => { lanes.scheduled = false; this.pump(lanes); });
      }
    }
    if (stored.type === 'match_ended') {
      const match = this.deps.journal.matches.get(stored.matchKey);
      if (match) this.maybeRelease(match);
    }
  }

  private maybeRelease(match: MatchLog): void {
    if (!match.ended) return;
    for (const lanes of this.endpoints.values()) if ((lanes.cursors[match.matchKey] ?? 0) < match.events.length) return;
    for (const lanes of this.endpoints.values()) lanes.lanes.delete(match.matchKey);
    this.deps.journal.release(match.matchKey);
  }

  private pump(lanes: EndpointLanes): void {
    if (lanes.closed || Date.now() < lanes.suspendedUntil) return;
    if (lanes.endpoint.batch) return this.pumpBatch(lanes);
    // Backing off: one probe at a time until an attempt succeeds.
    const limit = lanes.streak > 0 ? 1 : MAX_LANES_IN_FLIGHT;
    for (const matchKey of lanes.ready) {
      if (lanes.stats.inFlight >= limit) return;
      lanes.ready.delete(matchKey);
      const match = this.deps.journal.matches.get(matchKey);
      const lane = lanes.lanes.get(matchKey);
      if (!match || lane?.busy) continue;
      if (this.leaseGate.mustWait(lanes, matchKey)) continue;
      const next = this.next(lanes, match);
      if (next) void this.send(lanes, [{ match, lane: this.laneOf(lanes, matchKey), events: [next] }], next.text, next.id);
    }
  }

  /** A batch endpoint: one request at a time, with the events due in every ready lane (within the bounds). */
  private pumpBatch(lanes: EndpointLanes): void {
    if (lanes.stats.inFlight > 0 || lanes.ready.size === 0 || lanes.batchTimer) return;
    const wait = lanes.lastBatchAt + BATCH_INTERVAL_MS - Date.now();
    if (wait > 0) {
      lanes.batchTimer = setTimeout(() => { lanes.batchTimer = undefined; this.pump(lanes); }, wait);
      lanes.batchTimer.unref();
      return;
    }
    const parts = formBatch(lanes, this.batchSource);
    if (!parts.length) return this.keepPending(lanes, null); // what was pinned was delivered or dead-lettered meanwhile
    lanes.lastBatchAt = Date.now();
    const body = `[${parts.map((p) => p.events.map((e) => e.text).join(',')).join(',')}]`;
    void this.send(lanes, parts, body, batchId(lanes.endpoint.id, parts));
  }

  /** Keeps (or forgets: null) a batch endpoint's failed batch, in memory and in batches.json. */
  private keepPending(lanes: EndpointLanes, pending: PinnedBatch | null): void {
    if (pending === null && lanes.pending === null) return;
    lanes.pending = pending;
    const batches = this.deps.batches;
    if (!batches) return;
    if (pending) batches.kept[lanes.endpoint.id] = pending;
    else delete batches.kept[lanes.endpoint.id];
    batches.save(batches.kept);
  }


  private laneOf(lanes: EndpointLanes, matchKey: string): Lane {
    let lane = lanes.lanes.get(matchKey);
    if (!lane) lanes.lanes.set(matchKey, (lane = { attempts: 0, firstAttemptAt: 0, busy: false }));
    return lane;
  }

  /** The next event of the match this endpoint wants, skipping (and counting as handled) those it does not. */
  private next(lanes: EndpointLanes, match: MatchLog): StoredEvent | undefined {
    let cursor = lanes.cursors[match.matchKey] ?? 0;
    const start = cursor;
    let found: StoredEvent | undefined;
    while (cursor < match.handed) {
      const stored = keptEvent(match, cursor);
      if (wants(lanes.endpoint, stored)) { found = stored; break; }
      cursor++;
    }
    if (cursor !== start) {
      lanes.cursors[match.matchKey] = cursor;
      this.persist();
    }
    if (!found) this.maybeRelease(match);
    return found;
  }

  /** One signed request: one event (its JSON as the body, its id as webhook-id), or a batch endpoint's array. */
  private async send(lanes: EndpointLanes, parts: Part[], body: string, id: string): Promise<void> {
    const started = Date.now();
    for (const { lane } of parts) {
      lane.busy = true;
      if (lane.attempts === 0) lane.firstAttemptAt = started;
      lane.attempts++;
    }
    lanes.stats.inFlight++;
    let error: string | null = null;
    try {
      const timestamp = Math.floor(started / 1000);
      const headers = {
        'Content-Type': 'application/json',
        'User-Agent': 'overlay-data-service-webhooks',
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': lanes.sign(id, timestamp, body),
        ...(this.deps.nodeId ? { 'x-ods-node': this.deps.nodeId } : {}),
      };
      const status = await lanes.post(body, headers);
      if (status < 200 || status > 299) error = `HTTP ${status}`;
    } catch (err) {
      error = (err as Error).message;
    }
    for (const { lane } of parts) lane.busy = false;
    lanes.stats.inFlight--;
    if (lanes.closed) return;
    if (error === null) {
      lanes.streak = 0;
      if (lanes.endpoint.batch) this.keepPending(lanes, null);
      for (const { match, lane, events } of parts) {
        const last = events[events.length - 1];
        lanes.stats.delivered += events.length;
        this.advance(lanes, lane, match.matchKey, last);
        if (last.seq === match.events.length) this.maybeRelease(match);
      }
    } else {
      lanes.stats.failedAttempts++;
      lanes.lastError = error.slice(0, 200);
      if (lanes.endpoint.batch) this.keepPending(lanes, pinOf(parts));
      for (const { match } of parts) lanes.ready.add(match.matchKey);
      if (lanes.streak === 0) this.log.warn({ endpoint: lanes.endpoint.id, eventId: parts[0].events[0].id, error }, 'webhook delivery failed: backing off');
      lanes.streak++;
      this.deadLetterExpired(lanes);
      const delay = Math.min(this.deps.retryMaxMs ?? 30_000, (this.deps.retryFirstMs ?? 1000) * 2 ** (lanes.streak - 1));
      lanes.suspendedUntil = Date.now() + delay;
      clearTimeout(lanes.timer);
      lanes.timer = setTimeout(() => {
        lanes.suspendedUntil = 0; // a timer may fire a little before Date.now() says it is due
        this.pump(lanes);
      }, delay);
      lanes.timer.unref();
    }
    this.pump(lanes);
  }

  /** The head events of this endpoint's lanes stored more than WEBHOOK_RETRY_FOR_MS ago are given up (each lane goes on). */
  private deadLetterExpired(lanes: EndpointLanes): void {
    const cutoff = Date.now() - this.deps.retryForMs;
    for (const match of this.deps.journal.matches.values()) {
      const lane = lanes.lanes.get(match.matchKey);
      if (lane?.busy) continue;
      for (;;) {
        const head = this.next(lanes, match);
        if (!head || (head.storedAt ?? 0) > cutoff) break;
        const l = lane ?? { attempts: 0, firstAttemptAt: head.storedAt ?? 0, busy: false };
        this.deadLetter(lanes, l, head, lanes.lastError);
        this.advance(lanes, l, match.matchKey, head);
      }
    }
  }

  private advance(lanes: EndpointLanes, lane: Lane, matchKey: string, stored: StoredEvent): void {
    lane.attempts = 0;
    // Never backwards: a request sent before a takeover's cursors were applied (onAdopt) answers later.
    lanes.cursors[matchKey] = Math.max(lanes.cursors[matchKey] ?? 0, stored.seq);
    this.persist();
    const fence = this.deps.journal.fenceOf(matchKey);
    if (fence) this.deps.shared?.advance(lanes.endpoint.id, matchKey, stored.seq, fence).catch((err: Error) => {
      if (err instanceof OutputFencedError) return this.deps.journal.depose(matchKey);
      this.log.warn({ endpoint: lanes.endpoint.id, eventId: stored.id, error: err.message }, 'webhook cursor not in the shared outbox (a takeover may send it again)');
    });
    lanes.ready.add(matchKey);
  }

  private deadLetter(lanes: EndpointLanes, lane: Lane, stored: StoredEvent, error: string): void {
    lanes.stats.deadLettered++;
    this.deps.deadLetters.add({
      endpointId: lanes.endpoint.id, eventId: stored.id, type: stored.type, groupCode: stored.groupCode,
      attempts: lane.attempts, lastError: error.slice(0, 200), firstAttemptAt: new Date(lane.firstAttemptAt || (stored.storedAt ?? Date.now())).toISOString(), deadAt: new Date().toISOString(),
    }).catch((err: Error) => this.log.warn({ eventId: stored.id, error: err.message }, 'dead letter not kept (the log line above has it)'));
    this.log.error({ endpoint: lanes.endpoint.id, eventId: stored.id, attempts: lane.attempts, error }, 'webhook delivery given up: dead-lettered');
  }

  private persist(): void {
    this.deps.save?.(this.deps.cursors);
  }
}
