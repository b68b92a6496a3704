// A match event as consumers get it (webhooks, GET /events, the match-ended record): the envelope of
// docs/events.md around what a shard derived (protocol/match-events.ts). One JSON Schema covers them
// all (events/schema.ts, served at GET /schema/events.json).
import type { MatchEventType } from '../../protocol/match-events.js';

export interface MatchEvent {
  /** Stable and unique: `<matchKey>.<seq>` (the webhook-id of its deliveries, the SSE id). */
  id: string;
  type: MatchEventType;
  /** The envelope and data version (docs/events.md, "Versioning"). */
  version: number;
  /** 1, 2, 3… per match, without gaps: the order to apply them in. */
  seq: number;
  groupCode: string;
  /** The game's match id ('' before match_start). */
  matchId: string;
  /** This match's instance of the group code (a code can be used again by a later match); its record's key. */
  matchKey: string;
  /** ISO 8601, on the match's clock. */
  time: string;
  round: number;
  data: Record<string, unknown>;
}

/**
 * An event as the journal keeps it: its JSON text (made once; what every consumer gets) and the few
 * envelope fields routing reads. The envelope object itself is not kept: it is parsed back from the
 * text where one is needed (eventOf: the record at a match's end, a repeat's digest, the load order
 * at a restart). Kept so for memory: 1,862 bytes of heap a stored event with the object beside its
 * text, 1,008 without (bench/event-memory.ts; docs/perf/message-path.md, "Memory").
 */
export interface StoredEvent {
  id: string;
  type: MatchEventType;
  seq: number;
  matchKey: string;
  groupCode: string;
  round: number;
  text: string;
  /** The derivation order within the match (DerivedEvent.order): duplicates after a restore are below it. */
  order: number;
  /** The organisation of the match's access key ('' without one): webhook endpoints may filter on it. */
  organizationId: string;
  /** When this process stored (or, after a restart, loaded) it: wall clock, epoch ms (retries, the stream's window). */
  storedAt?: number;
  /** When it was first stored, epoch ms (kept in its journal line: a restart keeps it): an output delay counts from it. */
  keptAt?: number;
}

/** A stored event of `event`, whose JSON text is `text`. */
export function storedEvent(event: MatchEvent, text: string, kept: Pick<StoredEvent, 'order' | 'organizationId' | 'storedAt' | 'keptAt'>): StoredEvent {
  const { id, type, seq, matchKey, groupCode, round } = event;
  return { id, type, seq, matchKey, groupCode, round, text, ...kept };
}

/** The envelope of a stored event, parsed from its text (a new object each call). */
export function eventOf(stored: StoredEvent): MatchEvent {
  return JSON.parse(stored.text) as MatchEvent;
}
