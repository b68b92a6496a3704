// A match's events as the journal holds them in memory (journal.ts): the log, built empty or read
// back from the journal's files or the shared outbox.
import { createHash } from 'node:crypto';
import type { OutboxEvent } from './event-outbox.js';
import { RecordBuilder } from './record.js';
import { eventOf, storedEvent, type MatchEvent, type StoredEvent } from './types.js';

export interface MatchLog {
  matchKey: string;
  groupCode: string;
  /**
   * Events in seq order (events[i].seq === i + 1). Those before `pruned` were let go (undefined):
   * durable, handed on, shared and delivered to every endpoint, they are read back from the
   * journal's files or the shared outbox when needed again (journal.ts, `prune`).
   */
  events: Array<StoredEvent | undefined>;
  /** How many of the first events were let go. */
  pruned: number;
  /** The match's record, folded as its events come (record.ts). */
  record: RecordBuilder;
  lastOrder: number;
  /**
   * Derivation order → the event stored with it, or its digest once it was let go: tells a repeat
   * from a new event of a reused order (a kept event is digested only then: a new event costs no hash).
   */
  byOrder: Map<number, StoredEvent | string>;
  ended: boolean;
  /** The events up to this seq are durable (in the shared outbox too, when there is one). */
  durable: number;
  /** The events up to this seq were handed on (durable, and past the match's output delay: delay-gate.ts): delivery sends only those. */
  handed: number;
  /** Shared outbox: the events up to this seq are confirmed there; the tells chained in seq order (outbox-share.ts). */
  shared: number;
  tail: Promise<void>;
  /** Shared outbox: this node's epoch for the match's outputs (its MatchOwnership epoch: the code's lease's, or its outputs lease's): every write carries it (events/event-outbox.ts). */
  epoch: number;
  /** Shared outbox: its outputs alone came to this node (an outputs orphan adopted: its outputs lease, not the code's, bounds delivery and fences). */
  claimed: boolean;
}

/** The event at index i (seq i + 1), never one let go: reading one is a fault of the reader (`pruned` bounds every reader). */
export function keptEvent(match: { readonly events: ReadonlyArray<StoredEvent | undefined>; readonly matchKey: string }, i: number): StoredEvent {
  const stored = match.events[i];
  if (stored === undefined) throw new Error(`event journal: event ${i + 1} of ${match.matchKey} was let go and is read`);
  return stored;
}

export function emptyLog(matchKey: string, groupCode: string): MatchLog {
  return { matchKey, groupCode, events: [], pruned: 0, record: new RecordBuilder(), lastOrder: -1, byOrder: new Map(), ended: false, durable: 0, handed: 0, shared: 0, tail: Promise.resolve(), epoch: 0, claimed: false };
}

/** A match's log from its stored events (seq order; a repeated line is skipped). */
export function logOf(events: StoredEvent[]): MatchLog {
  const first = events[0];
  const match = emptyLog(first.matchKey, first.groupCode);
  for (const stored of events) {
    if (stored.seq !== match.events.length + 1) continue;
    match.events.push(stored);
    if (stored.type !== 'match_ended') match.record.add(eventOf(stored));
    if (stored.order >= 0) {
      match.lastOrder = stored.order;
      match.byOrder.set(stored.order, stored);
    }
    if (stored.type === 'match_ended') match.ended = true;
  }
  match.durable = match.shared = match.events.length;
  return match;
}

/** An ended match's record's storedAt (epoch ms), from its match_ended event (now when it has none). */
export function storedAtOf(match: MatchLog): number {
  const last = match.events.at(-1);
  const record = (last ? eventOf(last).data.record : undefined) as { storedAt?: string } | undefined;
  const at = record?.storedAt ? Date.parse(record.storedAt) : NaN;
  return Number.isFinite(at) ? at : Date.now();
}

export function storedOf(row: OutboxEvent): StoredEvent {
  // keptAt: the output delay counts again from the takeover (the shared outbox does not keep the first store's time).
  const now = Date.now();
  return storedEvent(JSON.parse(row.text) as MatchEvent, row.text, { order: row.order, organizationId: row.organizationId, storedAt: now, keptAt: now });
}

/** JS dates span ±8.64e15 ms: an event's time comes from the match's clock, which an observer's
 *  timestamps can move (TRUST_REPLAY_TIMESTAMPS); one out of that range is written as now. */
export function isoTime(at: number): string {
  return new Date(Number.isFinite(at) && Math.abs(at) <= 8.64e15 ? at : Date.now()).toISOString();
}

/** The digest of an event byOrder keeps (digestOf): kept as such once the event was let go. */
function digestOfKept(kept: StoredEvent | string): string {
  return typeof kept === 'string' ? kept : digestOf(kept.type, eventOf(kept).data);
}

/**
 * Whether a derived event of a reused order (order <= lastOrder) is one stored before: a restored
 * shard applies again the messages since its snapshot and derives the same events, dropped. One that
 * differs is new: the match's state came back from an older snapshot (a SIGKILL), and the messages
 * after it were not all applied again.
 */
export function isRepeat(match: MatchLog, derived: { order: number; type: string; data: Record<string, unknown> }): boolean {
  if (derived.order > match.lastOrder) return false;
  const before = match.byOrder.get(derived.order);
  return before !== undefined && digestOfKept(before) === digestOf(derived.type, derived.data);
}

/**
 * Lets go of the match's events before `upTo` (MatchLog.pruned), the latest always kept: the caller
 * (journal.ts prune) knows them written, handed on (the resume window has them, sealed:
 * resume-window.ts), shared and delivered to every endpoint. A redelivery reads one back from the
 * journal's files or the shared outbox; the record was folded as they came; a repeat is told by the
 * digest kept in the event's place.
 */
export function letGo(match: MatchLog, upTo: number): void {
  const end = Math.min(upTo, match.events.length - 1);
  for (let i = match.pruned; i < end; i++) {
    const stored = match.events[i];
    if (stored && stored.order >= 0 && match.byOrder.get(stored.order) === stored) match.byOrder.set(stored.order, digestOfKept(stored));
    match.events[i] = undefined;
  }
  if (end > match.pruned) match.pruned = end;
}

/** Type and data (the record aside, added here) of an event, digested. */
export function digestOf(type: string, data: Record<string, unknown>): string {
  const { record: _record, ...rest } = data;
  return createHash('sha1').update(type).update('|').update(JSON.stringify(rest)).digest('base64');
}
