// The event journal (docs/events.md): every match event numbered (seq per match, id
// `<matchKey>.<seq>`), kept durably before anyone is told of it (journal-files.ts; in memory only
// with EVENTS_ENABLED and no disk), then handed to its listeners (webhook delivery, the live stream).
// A match's events stay in memory while it runs and until every endpoint has them; the stream keeps
// a window of the latest events (EVENTS_RESUME_WINDOW_MS) for Last-Event-ID. A match_ended event
// carries the match's record (record.ts), which is kept for the retention (EVENTS_RETENTION_MS).
import { createHash } from 'node:crypto';
import type { DerivedEvent } from '../../protocol/match-events.js';
import { EVENTS_VERSION } from '../../protocol/match-events.js';
import type { Logger } from '../base/log.js';
import type { JournalFiles } from './journal-files.js';
import { buildRecord, type MatchRecord } from './record.js';
import type { MatchEvent, StoredEvent } from './types.js';

/** The most events the stream's resume window holds, whatever their age (memory bound). */
const MAX_WINDOW_EVENTS = 100_000;

export interface MatchLog {
  matchKey: string;
  groupCode: string;
  /** Events in seq order (events[i].event.seq === i + 1). */
  events: StoredEvent[];
  lastOrder: number;
  /** Derivation order → the event stored with it: tells a repeat from a new event of a reused order (digested only then). */
  byOrder: Map<number, StoredEvent>;
  ended: boolean;
}

/** Type and data (the record aside, added here) of an event, digested. */
function digestOf(type: string, data: Record<string, unknown>): string {
  const { record: _record, ...rest } = data;
  return createHash('sha1').update(type).update('|').update(JSON.stringify(rest)).digest('base64');
}

export interface JournalOptions {
  files: JournalFiles | null;
  log: Logger;
  resumeWindowMs: number;
  retentionMs: number;
}

export class EventJournal {
  readonly matches = new Map<string, MatchLog>();
  readonly records = new Map<string, MatchRecord>();
  /** Matches that ended and were released from memory (their record stays): a late event for one is dropped. */
  private readonly released = new Set<string>();
  /** The latest events of every match in the order they were added (the live stream's resume window). */
  private recent: StoredEvent[] = [];
  private readonly listeners = new Set<(stored: StoredEvent) => void>();
  private readonly log: Logger;
  private readonly expireTimer: NodeJS.Timeout;

  constructor(private readonly options: JournalOptions) {
    this.log = options.log.child({ module: 'events' });
    this.load();
    this.expireTimer = setInterval(() => this.expire(), Math.min(3_600_000, options.retentionMs)).unref();
  }

  /** Numbers, stores and hands on one derived event; null when it was stored before (a restored shard's repeat). */
  add(groupCode: string, matchKey: string, matchId: string, organizationId: string, derived: DerivedEvent): StoredEvent | null {
    let match = this.matches.get(matchKey);
    if (!match && this.released.has(matchKey)) return null;
    if (!match) {
      match = { matchKey, groupCode, events: [], lastOrder: -1, byOrder: new Map(), ended: false };
      this.matches.set(matchKey, match);
    }
    if (match.ended) return null;
    // A restored match applies again the messages since its snapshot: the same events with the same
    // order, dropped here. An event of a reused order that differs is new: the match's state came
    // back from an older snapshot (a SIGKILL), and the messages after it were not all applied again.
    // Only a reused order is digested (a new event costs no hash).
    if (derived.order <= match.lastOrder) {
      const before = match.byOrder.get(derived.order);
      if (before && digestOf(before.event.type, before.event.data) === digestOf(derived.type, derived.data)) return null;
    }
    match.lastOrder = derived.order;
    const seq = match.events.length + 1;
    const event: MatchEvent = {
      id: `${matchKey}.${seq}`, type: derived.type, version: EVENTS_VERSION, seq, groupCode, matchId, matchKey,
      time: new Date(derived.at).toISOString(), round: derived.round, data: derived.data,
    };
    if (derived.type === 'match_ended') {
      match.ended = true;
      const record = buildRecord(match.events.map((s) => s.event), event);
      event.data = { ...event.data, record };
      this.records.set(matchKey, record);
      this.options.files?.writeRecord(matchKey, record);
    }
    const stored: StoredEvent = { event, text: JSON.stringify(event), order: derived.order, organizationId };
    this.options.files?.append(stored);
    match.byOrder.set(derived.order, stored);
    match.events.push(stored);
    this.remember(stored);
    for (const listener of this.listeners) listener(stored);
    return stored;
  }

  /** An ended match every endpoint has: its events leave memory (the files and the record stay). */
  release(matchKey: string): void {
    const match = this.matches.get(matchKey);
    if (!match?.ended) return;
    this.matches.delete(matchKey);
    this.released.add(matchKey);
  }

  /** Whether the match is still kept (in memory, or released with its record within the retention). */
  knows(matchKey: string): boolean {
    return this.matches.has(matchKey) || this.released.has(matchKey);
  }

  /** Told of every new event, after it was stored. */
  subscribe(listener: (stored: StoredEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The events after the one with this id, within the resume window; null when it is not in it. */
  after(id: string): StoredEvent[] | null {
    for (let i = this.recent.length - 1; i >= 0; i--) if (this.recent[i].event.id === id) return this.recent.slice(i + 1);
    return null;
  }

  /** Every event in the resume window, oldest first. */
  window(): readonly StoredEvent[] {
    this.trim(Date.now());
    return this.recent;
  }

  close(): void {
    clearInterval(this.expireTimer);
    this.options.files?.close();
  }

  private remember(stored: StoredEvent): void {
    stored.storedAt = Date.now();
    this.recent.push(stored);
    if (this.recent.length % 256 === 0) this.trim(Date.now());
    if (this.recent.length > MAX_WINDOW_EVENTS) this.recent = this.recent.slice(-MAX_WINDOW_EVENTS / 2);
  }

  private trim(now: number): void {
    const from = now - this.options.resumeWindowMs;
    let i = 0;
    while (i < this.recent.length && (this.recent[i].storedAt ?? 0) < from) i++;
    if (i > 0) this.recent = this.recent.slice(i);
  }

  private load(): void {
    const files = this.options.files;
    if (!files) return;
    files.expire(this.options.retentionMs, Date.now());
    const all: StoredEvent[] = [];
    for (const events of files.loadEvents()) {
      const first = events[0].event;
      const match: MatchLog = { matchKey: first.matchKey, groupCode: first.groupCode, events: [], lastOrder: -1, byOrder: new Map(), ended: false };
      for (const stored of events) {
        if (stored.event.seq !== match.events.length + 1) continue; // a repeated line (never written twice, but be safe)
        match.events.push(stored);
        match.lastOrder = stored.order;
        match.byOrder.set(stored.order, stored);
        if (stored.event.type === 'match_ended') match.ended = true;
        all.push(stored);
      }
      this.matches.set(match.matchKey, match);
    }
    for (const record of files.loadRecords() as MatchRecord[]) if (record?.matchKey) this.records.set(record.matchKey, record);
    // The resume window after a restart: the stored events by time (they were added in about that order).
    all.sort((a, b) => a.event.time.localeCompare(b.event.time) || a.event.seq - b.event.seq);
    const now = Date.now();
    for (const stored of all) stored.storedAt = now;
    this.recent = all.slice(-MAX_WINDOW_EVENTS / 2);
    if (all.length) this.log.info({ events: all.length, matches: this.matches.size, records: this.records.size }, 'event journal loaded');
  }

  private expire(): void {
    const now = Date.now();
    const cutoff = new Date(now - this.options.retentionMs).toISOString();
    for (const [key, record] of this.records) {
      if (record.storedAt >= cutoff) continue;
      this.records.delete(key);
      this.matches.delete(key);
      this.released.delete(key);
    }
    const removed = this.options.files?.expire(this.options.retentionMs, now) ?? 0;
    if (removed) this.log.info({ files: removed }, 'event journal: files past the retention deleted');
  }
}
