// Webhook delivery (docs/events.md, "Delivery guarantees"): at least once, in order per match and
// endpoint. Per endpoint, each match is a lane: one request at a time, the next event only after a 2xx
// for the one before. A failed attempt (not 2xx, timeout, network) is retried after 1 s, 2 s, 4 s … up
// to 30 s between attempts, for WEBHOOK_RETRY_FOR_MS from its first attempt; then the event is
// dead-lettered (kept, listed, shown on the dashboard) and the lane goes on. At most
// MAX_LANES_IN_FLIGHT requests per endpoint at once, so a slow endpoint holds only its own lanes:
// nothing waits for it on the match's path (the journal stores, then tells this module), and other
// endpoints have their own lanes. The cursors (the last seq handled per endpoint and match) are saved
// after each step, so a restart goes on where it was (a delivery whose cursor was not yet saved is sent again).
import { Webhook } from 'standardwebhooks';
import type { Outbound } from '../backend/http.js';
import type { Logger } from '../log.js';
import { wants, type WebhookEndpoint } from './endpoints.js';
import type { EventJournal, MatchLog } from './journal.js';
import type { StoredEvent } from './types.js';

const MAX_LANES_IN_FLIGHT = 8;
const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;
const MAX_DEAD_LETTERS = 1000;

export interface DeadLetter {
  endpointId: string;
  eventId: string;
  type: string;
  groupCode: string;
  attempts: number;
  lastError: string;
  firstAttemptAt: string;
  deadAt: string;
}

export interface DeliveryStats { delivered: number; failedAttempts: number; deadLettered: number; inFlight: number; waiting: number }

interface Lane { attempts: number; firstAttemptAt: number; timer: NodeJS.Timeout | undefined; busy: boolean }

export interface DeliveryDeps {
  journal: EventJournal;
  request: Outbound;
  timeoutMs: number;
  retryForMs: number;
  log: Logger;
  /** Cursors and dead letters to keep (journal-files.ts), or null (memory only): the dead letters only when they changed. */
  save: ((cursors: Record<string, Record<string, number>>, dead: DeadLetter[] | null) => void) | null;
  cursors: Record<string, Record<string, number>>;
  deadLetters: DeadLetter[];
}

class EndpointLanes {
  readonly stats: DeliveryStats = { delivered: 0, failedAttempts: 0, deadLettered: 0, inFlight: 0, waiting: 0 };
  readonly ready = new Set<string>();
  readonly lanes = new Map<string, Lane>();
  readonly signer: Webhook;
  closed = false;

  constructor(readonly endpoint: WebhookEndpoint, readonly cursors: Record<string, number>) {
    this.signer = new Webhook(endpoint.secret);
  }
}

export class WebhookDelivery {
  private readonly endpoints = new Map<string, EndpointLanes>();
  private readonly log: Logger;
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: DeliveryDeps) {
    this.log = deps.log.child({ module: 'webhooks' });
    this.unsubscribe = deps.journal.subscribe((stored) => this.onEvent(stored));
  }

  /** Starts delivering to an endpoint: where it was (saved cursors), or from now on when it is new here. */
  add(endpoint: WebhookEndpoint): void {
    this.remove(endpoint.id);
    const known = this.deps.cursors[endpoint.id];
    const cursors = known ?? {};
    if (!known) for (const match of this.deps.journal.matches.values()) cursors[match.matchKey] = match.events.length;
    this.deps.cursors[endpoint.id] = cursors;
    const lanes = new EndpointLanes(endpoint, cursors);
    this.endpoints.set(endpoint.id, lanes);
    for (const match of this.deps.journal.matches.values()) if ((cursors[match.matchKey] ?? 0) < match.events.length) lanes.ready.add(match.matchKey);
    this.persist();
    this.pump(lanes);
  }

  remove(id: string): boolean {
    const lanes = this.endpoints.get(id);
    if (!lanes) return false;
    lanes.closed = true;
    for (const lane of lanes.lanes.values()) clearTimeout(lane.timer);
    this.endpoints.delete(id);
    delete this.deps.cursors[id];
    this.persist();
    return true;
  }

  statsOf(id: string): DeliveryStats | undefined {
    const lanes = this.endpoints.get(id);
    if (!lanes) return undefined;
    let waiting = 0;
    for (const match of this.deps.journal.matches.values()) waiting += Math.max(0, match.events.length - (lanes.cursors[match.matchKey] ?? 0));
    return { ...lanes.stats, waiting };
  }

  get deadLetters(): readonly DeadLetter[] {
    return this.deps.deadLetters;
  }

  close(): void {
    this.unsubscribe();
    for (const id of [...this.endpoints.keys()]) {
      const lanes = this.endpoints.get(id)!;
      lanes.closed = true;
      for (const lane of lanes.lanes.values()) clearTimeout(lane.timer);
    }
    this.endpoints.clear();
  }

  /** Every ended match that every endpoint has leaves memory (journal.release); after a restart too. */
  releaseDelivered(): void {
    for (const match of [...this.deps.journal.matches.values()]) this.maybeRelease(match);
  }

  private onEvent(stored: StoredEvent): void {
    for (const lanes of this.endpoints.values()) {
      lanes.ready.add(stored.event.matchKey);
      this.pump(lanes);
    }
    if (stored.event.type === 'match_ended') {
      const match = this.deps.journal.matches.get(stored.event.matchKey);
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
    for (const matchKey of lanes.ready) {
      if (lanes.stats.inFlight >= MAX_LANES_IN_FLIGHT) return;
      lanes.ready.delete(matchKey);
      const match = this.deps.journal.matches.get(matchKey);
      const lane = lanes.lanes.get(matchKey);
      if (!match || lane?.busy || lane?.timer) continue;
      const next = this.next(lanes, match);
      if (next) void this.send(lanes, match, next);
    }
  }

  /** The next event of the match this endpoint wants, skipping (and counting as handled) those it does not. */
  private next(lanes: EndpointLanes, match: MatchLog): StoredEvent | undefined {
    let cursor = lanes.cursors[match.matchKey] ?? 0;
    const start = cursor;
    let found: StoredEvent | undefined;
    while (cursor < match.events.length) {
      const stored = match.events[cursor];
      if (wants(lanes.endpoint, stored.event.type, stored.organizationId)) { found = stored; break; }
      cursor++;
    }
    if (cursor !== start) {
      lanes.cursors[match.matchKey] = cursor;
      this.persist();
    }
    if (!found) this.maybeRelease(match);
    return found;
  }

  private async send(lanes: EndpointLanes, match: MatchLog, stored: StoredEvent): Promise<void> {
    const matchKey = match.matchKey;
    let lane = lanes.lanes.get(matchKey);
    if (!lane) lanes.lanes.set(matchKey, (lane = { attempts: 0, firstAttemptAt: 0, timer: undefined, busy: false }));
    lane.busy = true;
    lanes.stats.inFlight++;
    if (lane.attempts === 0) lane.firstAttemptAt = Date.now();
    lane.attempts++;
    let error: string | null = null;
    try {
      const now = new Date();
      const headers = {
        'Content-Type': 'application/json',
        'User-Agent': 'overlay-data-service-webhooks',
        'webhook-id': stored.event.id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': lanes.signer.sign(stored.event.id, now, stored.text),
      };
      const res = await this.deps.request(lanes.endpoint.url, { method: 'POST', headers, body: stored.text, timeoutMs: this.deps.timeoutMs, label: 'webhook' });
      if (res.status < 200 || res.status > 299) error = `HTTP ${res.status}`;
    } catch (err) {
      error = (err as Error).message;
    }
    lane.busy = false;
    lanes.stats.inFlight--;
    if (lanes.closed) return;
    if (error === null) {
      lanes.stats.delivered++;
      this.advance(lanes, lane, matchKey, stored);
      if (stored.event.seq === match.events.length) this.maybeRelease(match);
    } else {
      lanes.stats.failedAttempts++;
      if (Date.now() - lane.firstAttemptAt >= this.deps.retryForMs) {
        this.deadLetter(lanes, lane, stored, error);
        this.advance(lanes, lane, matchKey, stored);
      } else {
        const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (lane.attempts - 1));
        if (lane.attempts === 1) this.log.warn({ endpoint: lanes.endpoint.id, eventId: stored.event.id, error }, 'webhook delivery failed: retrying');
        lane.timer = setTimeout(() => {
          lane!.timer = undefined;
          lanes.ready.add(matchKey);
          this.pump(lanes);
        }, delay);
        lane.timer.unref();
      }
    }
    this.pump(lanes);
  }

  private advance(lanes: EndpointLanes, lane: Lane, matchKey: string, stored: StoredEvent): void {
    lane.attempts = 0;
    lanes.cursors[matchKey] = stored.event.seq;
    this.persist();
    lanes.ready.add(matchKey);
  }

  private deadLetter(lanes: EndpointLanes, lane: Lane, stored: StoredEvent, error: string): void {
    lanes.stats.deadLettered++;
    const dead = this.deps.deadLetters;
    dead.push({
      endpointId: lanes.endpoint.id, eventId: stored.event.id, type: stored.event.type, groupCode: stored.event.groupCode,
      attempts: lane.attempts, lastError: error.slice(0, 200), firstAttemptAt: new Date(lane.firstAttemptAt).toISOString(), deadAt: new Date().toISOString(),
    });
    if (dead.length > MAX_DEAD_LETTERS) dead.splice(0, dead.length - MAX_DEAD_LETTERS);
    this.log.error({ endpoint: lanes.endpoint.id, eventId: stored.event.id, attempts: lane.attempts, error }, 'webhook delivery given up: dead-lettered');
    this.persist(true);
  }

  private persist(dead = false): void {
    this.deps.save?.(this.deps.cursors, dead ? this.deps.deadLetters : null);
  }
}
