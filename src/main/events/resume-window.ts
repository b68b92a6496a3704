// The live stream's resume window (journal.ts; docs/events.md, "The live stream"): the latest events
// of every match in the order they were handed on, for Last-Event-ID, at most resumeWindowMs old and
// MAX_WINDOW_EVENTS events (memory bound).
//
// It holds ~10 minutes of every match's events (at 300 matches at game pace ~50,000), and a resume
// reads it rarely: so only the newest BLOCK_EVENTS are kept as they are; the older ones are sealed
// in blocks, each its events' fields deflated together, and inflated only when a resume reaches
// into them (docs/perf/memory.md, "In play"). A sealed event no longer holds its StoredEvent: once
// its match's log lets it go (released, or delivered: journal.ts), it costs only its compressed bytes.
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { MatchEventType } from '../../protocol/match-events.js';
import type { StoredEvent } from './types.js';

/** The most events the stream's resume window holds, whatever their age (memory bound). */
const MAX_WINDOW_EVENTS = 100_000;
/** Events sealed together: large enough for deflate to find the envelopes' repeats, small enough to seal in well under a millisecond. */
export const BLOCK_EVENTS = 128;

/** A sealed block: its events' rows (SealedRow), deflated, with the storedAt of its newest. */
interface Block { last: number; count: number; bytes: Buffer }
type SealedRow = [seq: number, order: number, round: number, storedAt: number, keptAt: number | null, type: MatchEventType, groupCode: string, matchKey: string, organizationId: string, text: string];

export class ResumeWindow {
  private sealed: Block[] = [];
  private sealedCount = 0;
  /** The newest events, not sealed yet (at most BLOCK_EVENTS). */
  private open: StoredEvent[] = [];

  constructor(private readonly resumeWindowMs: number) {}

  /** An event handed on now. */
  remember(stored: StoredEvent): void {
    stored.storedAt = Date.now();
    this.push(stored);
  }

  /** After a restart: the stored events, in time order (their storedAt set by the loader). */
  reload(all: StoredEvent[]): void {
    this.sealed = [];
    this.sealedCount = 0;
    this.open = [];
    for (const stored of all.slice(-MAX_WINDOW_EVENTS / 2)) this.push(stored);
  }

  /** The events after the one with this id, within the window; null when it is not in it. */
  after(id: string): StoredEvent[] | null {
    const from = Date.now() - this.resumeWindowMs;
    for (let i = this.open.length - 1; i >= 0; i--) if (this.open[i].id === id) return (this.open[i].storedAt ?? 0) >= from ? this.open.slice(i + 1) : null;
    const later: StoredEvent[][] = [this.open];
    for (let b = this.sealed.length - 1; b >= 0 && this.sealed[b].last >= from; b--) {
      const events = unseal(this.sealed[b]);
      const at = events.findIndex((e) => e.id === id);
      if (at >= 0) {
        if ((events[at].storedAt ?? 0) < from) return null;
        return [events.slice(at + 1), ...later.reverse()].flat();
      }
      later.push(events);
    }
    return null;
  }

  /** Events held (sealed and open), the older than the window included until their block goes. */
  get size(): number {
    return this.sealedCount + this.open.length;
  }

  private push(stored: StoredEvent): void {
    this.open.push(stored);
    if (this.open.length < BLOCK_EVENTS) return;
    this.sealed.push(seal(this.open));
    this.sealedCount += this.open.length;
    this.open = [];
    this.trim(Date.now());
  }

  /** Blocks whose newest event left the window go; past the bound, the oldest go too, down to half of it. */
  private trim(now: number): void {
    const from = now - this.resumeWindowMs;
    let drop = 0;
    let count = this.size;
    const dropOne = () => { count -= this.sealed[drop].count; drop++; };
    while (drop < this.sealed.length && this.sealed[drop].last < from) dropOne();
    if (count > MAX_WINDOW_EVENTS) while (drop < this.sealed.length && count > MAX_WINDOW_EVENTS / 2) dropOne();
    if (drop === 0) return;
    this.sealed = this.sealed.slice(drop);
    this.sealedCount = count - this.open.length;
  }
}

function seal(events: StoredEvent[]): Block {
  const rows: SealedRow[] = events.map((e) => [e.seq, e.order, e.round, e.storedAt ?? 0, e.keptAt ?? null, e.type, e.groupCode, e.matchKey, e.organizationId, e.text]);
  return { last: events[events.length - 1].storedAt ?? 0, count: events.length, bytes: deflateRawSync(JSON.stringify(rows), { level: 1 }) };
}

function unseal(block: Block): StoredEvent[] {
  const rows = JSON.parse(inflateRawSync(block.bytes).toString('utf8')) as SealedRow[];
  return rows.map(([seq, order, round, storedAt, keptAt, type, groupCode, matchKey, organizationId, text]) => ({
    id: `${matchKey}.${seq}`, type, seq, matchKey, groupCode, round, text, order, organizationId, storedAt, ...(keptAt !== null ? { keptAt } : {}),
  }));
}
