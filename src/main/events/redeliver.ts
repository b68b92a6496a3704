// A dead letter redelivered (README, "Webhooks"; docs/events.md, "Dead letters and redelivery"): an
// operator's request (POST /admin/webhooks/dead-letters/:id/redeliver, or the dashboard's button)
// sends that event once more to that endpoint, signed with the endpoint's secret, as one request
// now (not through the endpoint's lanes: it may arrive after later events of its match; consumers
// order by seq and de-duplicate by id, docs/events.md). The event is read where it is kept: the
// journal's memory, the shared outbox (REDIS_URL: any node redelivers any node's dead letter), this
// node's journal files; past the retention (EVENTS_RETENTION_MS) it is in none of them, and the
// answer says so (the dead letter stays until the list drops it). A 2xx removes every dead letter of
// that event to that endpoint; any other outcome keeps it and says why.
import { randomBytes } from 'node:crypto';
import type { OutboundReport } from '../backend/index.js';
import { sha256Hex } from '../base/hashing.js';
import type { EventOutbox } from './event-outbox.js';
import type { DeadLetter, DeadLetterStore } from './record-store.js';
import type { WebhookEndpoint } from './endpoints.js';
import type { EventJournal } from './journal.js';
import { webhookPoster, webhookSigner } from './post.js';

/** A dead letter as the admin API and the dashboard list it: with the id its redelivery names. */
export type DeadLetterView = DeadLetter & { id: string };

/** A dead letter's id: a digest of what it is (no field is added to what is stored, so earlier ones have one too). */
export function deadLetterId(l: DeadLetter): string {
  return sha256Hex(`${l.endpointId}\n${l.eventId}\n${l.deadAt}`).slice(0, 20);
}

export function withIds(letters: DeadLetter[]): DeadLetterView[] {
  return letters.map((l) => ({ id: deadLetterId(l), ...l }));
}

export type RedeliverOutcome =
  | { ok: true; letter: DeadLetterView; status: number; removed: number }
  | { ok: false; status: 404 | 410 | 502; error: string };

export interface RedeliveryDeps {
  journal: EventJournal;
  deadLetters: DeadLetterStore;
  /** Where the events are kept past memory, in the order to read them: the shared outbox, this node's journal files. */
  outboxes: EventOutbox[];
  endpoint(id: string): WebhookEndpoint | undefined;
  timeoutMs: number;
  report?: OutboundReport;
}

export class Redelivery {
  constructor(private readonly deps: RedeliveryDeps) {}

  /** Sends the dead letter's event again; rejects only when a store does not answer. */
  async redeliver(id: string): Promise<RedeliverOutcome> {
    const letter = withIds(await this.deps.deadLetters.list()).find((l) => l.id === id);
    if (!letter) return { ok: false, status: 404, error: 'Dead letter not found' };
    const endpoint = this.deps.endpoint(letter.endpointId);
    if (!endpoint) return { ok: false, status: 404, error: `endpoint ${letter.endpointId} no longer exists` };
    const text = await this.eventText(letter.eventId);
    if (text === undefined) return { ok: false, status: 410, error: `event ${letter.eventId} is no longer kept (past EVENTS_RETENTION_MS)` };
    // A batch endpoint takes arrays; a single-event delivery's webhook-id is the event's id (consumers de-duplicate by it).
    const [body, msgId] = endpoint.batch ? [`[${text}]`, `msg_${randomBytes(12).toString('hex')}`] : [text, letter.eventId];
    const poster = webhookPoster(endpoint.url, this.deps.timeoutMs, this.deps.report);
    let status: number;
    try {
      const timestamp = Math.floor(Date.now() / 1000);
      status = await poster.post(body, {
        'Content-Type': 'application/json',
        'User-Agent': 'overlay-data-service-webhooks',
        'webhook-id': msgId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': webhookSigner(endpoint.secret)(msgId, timestamp, body),
      });
    } catch (err) {
      return { ok: false, status: 502, error: `the endpoint was not reached: ${(err as Error).message}`.slice(0, 300) };
    } finally {
      poster.close();
    }
    if (status < 200 || status > 299) return { ok: false, status: 502, error: `the endpoint answered HTTP ${status}` };
    const removed = await this.deps.deadLetters.remove(letter.endpointId, letter.eventId);
    return { ok: true, letter, status, removed };
  }

  /** The event's JSON, from memory, then the outboxes; undefined when none holds it. */
  private async eventText(eventId: string): Promise<string | undefined> {
    const dot = eventId.lastIndexOf('.');
    const matchKey = eventId.slice(0, dot);
    const seq = Number(eventId.slice(dot + 1));
    if (dot <= 0 || !Number.isInteger(seq) || seq < 1) return undefined;
    const inMemory = this.deps.journal.matches.get(matchKey)?.events[seq - 1];
    if (inMemory?.id === eventId) return inMemory.text;
    for (const outbox of this.deps.outboxes) {
      const row = (await outbox.events(matchKey, seq - 1)).find((e) => e.seq === seq);
      if (row) return row.text;
    }
    return undefined;
  }
}
