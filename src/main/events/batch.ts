// A batch endpoint's next request (docs/events.md, "Batched deliveries"; delivery.ts sends it): the
// events due in its ready lanes within the bounds, or, after a failed attempt, the same batch again.
// A batch's webhook-id is made from what it carries, so every attempt of one batch has one id, as
// Standard Webhooks expects (a receiver's de-duplication by webhook-id then works): the failed batch
// is pinned ([matchKey, last seq] per match, kept in memory and in batches.json, journal-files.ts) and
// formed again from the cursors up to those seqs, after a restart too. A node that takes a match over
// (REDIS_URL) forms its own batch: it has the same id only when it carries the same events.
import { createHash } from 'node:crypto';
import type { EndpointLanes, Lane, Part } from './endpoint-lanes.js';
import { wants } from './endpoints.js';
import { keptEvent, type MatchLog } from './match-log.js';
import type { StoredEvent } from './types.js';

/** A batch delivery's bounds: events, and bytes of body (one larger event still goes, alone). */
const BATCH_MAX_EVENTS = 100;
const BATCH_MAX_BYTES = 512 * 1024;

/** A failed batch: [matchKey, the last seq it carried of that match], in the order sent. */
export type PinnedBatch = [string, number][];

/** What forming a batch reads of the delivery (delivery.ts). */
export interface BatchSource {
  match(matchKey: string): MatchLog | undefined;
  /** The lane's next wanted event (moving the cursor past unwanted ones), or none. */
  next(lanes: EndpointLanes, match: MatchLog): StoredEvent | undefined;
  /** The match may not be sent now (lease-gate.ts). */
  mustWait(lanes: EndpointLanes, matchKey: string): boolean;
  laneOf(lanes: EndpointLanes, matchKey: string): Lane;
}

/** The id of a batch: the endpoint and its events' ids, in order (the same events, the same id). */
export function batchId(endpointId: string, parts: readonly Part[]): string {
  const hash = createHash('sha256').update(endpointId);
  for (const { events } of parts) for (const stored of events) hash.update('\n').update(stored.id);
  return `msg_${hash.digest('hex').slice(0, 24)}`;
}

export function pinOf(parts: readonly Part[]): PinnedBatch {
  return parts.map(({ match, events }) => [match.matchKey, events[events.length - 1].seq]);
}

/** The next batch: the pinned one again when there is one (what is left of it), else the events due. */
export function formBatch(lanes: EndpointLanes, src: BatchSource): Part[] {
  if (lanes.pending) {
    const again = repeat(lanes, lanes.pending, src);
    if (again.length) return again;
  }
  const parts: Part[] = [];
  let count = 0;
  let bytes = 0;
  for (const matchKey of lanes.ready) {
    if (count >= BATCH_MAX_EVENTS || bytes >= BATCH_MAX_BYTES) break;
    lanes.ready.delete(matchKey);
    const match = src.match(matchKey);
    if (match && src.mustWait(lanes, matchKey)) continue;
    const first = match && src.next(lanes, match);
    if (!match || !first) continue;
    const events: StoredEvent[] = [];
    for (let i = first.seq - 1; i < match.handed; i++) {
      const stored = keptEvent(match, i);
      if (!wants(lanes.endpoint, stored)) continue;
      if (count > 0 && (count >= BATCH_MAX_EVENTS || bytes + stored.text.length > BATCH_MAX_BYTES)) break;
      events.push(stored);
      count++;
      bytes += stored.text.length + 1;
    }
    // A lane cut short by the bounds is ready again after this request (delivery.ts, advance()).
    parts.push({ match, lane: src.laneOf(lanes, matchKey), events });
  }
  return parts;
}

/**
 * What is left of the pinned batch: each match's wanted events from its cursor up to the seq it was
 * sent with. All of it: the same id; fewer when some were dead-lettered meanwhile or a match may not
 * be sent now (its lease), which makes another id; none when it was all handled.
 */
function repeat(lanes: EndpointLanes, pinned: PinnedBatch, src: BatchSource): Part[] {
  const parts: Part[] = [];
  for (const [matchKey, lastSeq] of pinned) {
    const match = src.match(matchKey);
    if (!match || src.mustWait(lanes, matchKey)) continue;
    const first = src.next(lanes, match);
    if (!first) continue;
    const events: StoredEvent[] = [];
    for (let i = first.seq - 1; i < Math.min(lastSeq, match.handed); i++) {
      const stored = keptEvent(match, i);
      if (wants(lanes.endpoint, stored)) events.push(stored);
    }
    if (!events.length) continue;
    lanes.ready.delete(matchKey);
    parts.push({ match, lane: src.laneOf(lanes, matchKey), events });
  }
  return parts;
}
