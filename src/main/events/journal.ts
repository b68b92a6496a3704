// The event journal (docs/events.md): every match event numbered (seq per match, id
// `<matchKey>.<seq>`), kept durably before anyone is told of it (journal-files.ts; in memory only
// with EVENTS_ENABLED and no disk), then handed to its listeners (webhook delivery, the live stream,
// the resume window) by the delay gate once due: at once, or after its match's output delay
// (delay-gate.ts, which tells them itself; MatchLog.handed).
// A match's events stay in memory until nothing here needs them (prune); the stream keeps a window
// of the latest events (EVENTS_RESUME_WINDOW_MS) for Last-Event-ID. A match_ended event
// carries the match's record (record.ts), which is kept for the retention (EVENTS_RETENTION_MS) by
// the RecordStore (events/record-store.ts: on disk with only its summary in memory, or in Redis).
// With a shared outbox (REDIS_URL: events/event-outbox.ts) every event is also appended there first
// (outbox-share.ts), every write fenced by this node's epoch for the match (output-owner.ts), and a
// match taken over from a lost node is first read from there (its events, each endpoint's cursor:
// `onAdopt`; an ended one's record kept again), so numbering and delivery go on where it was.
import { type DerivedEvent, EVENTS_VERSION } from '../../protocol/match-events.js';
import type { Logger } from '../base/log.js';
import { OutputFencedError, type EventOutbox, type OutputFence } from './event-outbox.js';
import type { RecordStore } from './record-store.js';
import { DelayGate } from './delay-gate.js';
import type { JournalFiles } from './journal-files.js';
import { emptyLog, isoTime, isRepeat, letGo, logOf, storedAtOf, storedOf, type MatchLog } from './match-log.js';
import { loadLogs } from './journal-load.js';
import { OutboxShare } from './outbox-share.js';
import { OutputOwner, type RunningHere } from './output-owner.js';
import { ResumeWindow } from './resume-window.js';
import type { MatchRecord } from './record.js';
import { eventOf, storedEvent, type MatchEvent, type StoredEvent } from './types.js';

export type { MatchLog } from './match-log.js';

/** With a shared outbox, `RunningHere` says what this node runs (epochs, leases, its outputs leases: output-owner.ts). */
export interface JournalOptions extends RunningHere {
  files: JournalFiles | null;
  /** The outbox shared by the nodes (REDIS_URL), or null. */
  shared?: EventOutbox | null;
  /** Where the ended matches' records are kept (adapters/state-dir/record-store.ts, or Redis). */
  records: RecordStore;
  log: Logger;
  resumeWindowMs: number;
  retentionMs: number;
  /** How often the events nothing needs any more are let go (prune; default 5 s). */
  pruneIntervalMs?: number;
  /** A group code's output delay, ms (0: none; output-delay/output-delays.ts). */
  delayMs?: (groupCode: string) => number;
}

export class EventJournal {
  readonly matches = new Map<string, MatchLog>();
  /** Matches that ended and were released from memory (their record stays), → their record's storedAt (ms): a late event for one is dropped. */
  private readonly released = new Map<string, number>();
  /** The latest events of every match in the order they were handed on (the live stream's resume window). */
  private readonly window_: ResumeWindow;
  private readonly adoptListeners = new Set<(matchKey: string, cursors: Record<string, number>) => void>();
  /** Matches whose outputs this node adopted while it was reading them (takeOver): their outputs lease's epoch. */
  private readonly adoptedOutputs = new Map<string, number>();
  /** Matches being read from the shared outbox: the events derived meanwhile, applied once it is read. */
  private readonly adopting = new Map<string, Array<Parameters<EventJournal['add']>>>();
  private readonly log: Logger;
  private readonly expireTimer: NodeJS.Timeout;
  private readonly pruneTimer: NodeJS.Timeout;
  /** How far every webhook endpoint has each match's events (delivery.ts; Infinity with none): the events before may be let go. */
  private deliveredUpTo: (matchKey: string) => number = () => Infinity;
  private offOutputsLost: () => void = () => {};
  /** Shared outbox: this node's ownership of the matches' outputs, and the matches it was deposed from (output-owner.ts). */
  private readonly owner: OutputOwner | undefined;
  /** Appends to the shared outbox, in order, caught up after a failure (outbox-share.ts). */
  private readonly sharer: OutboxShare | undefined;
  private readonly gate: DelayGate;

  constructor(private readonly options: JournalOptions) {
    this.log = options.log.child({ module: 'events' });
    this.window_ = new ResumeWindow(options.resumeWindowMs);
    this.owner = options.shared ? new OutputOwner(options, this.log, (key) => this.matches.get(key), (key) => this.depose(key)) : undefined;
    this.gate = new DelayGate(options.delayMs ?? (() => 0), (key) => this.matches.get(key));
    this.gate.subscribe((stored) => this.window_.remember(stored));
    this.load();
    this.expireTimer = setInterval(() => this.expire(), Math.min(3_600_000, options.retentionMs)).unref();
    this.pruneTimer = setInterval(() => this.prune(), options.pruneIntervalMs ?? 5_000).unref();
    const shared = options.shared;
    if (!shared) return;
    this.sharer = new OutboxShare(shared, this.log, (matchKey) => this.depose(matchKey));
    this.offOutputsLost = options.outputs?.onOutputsLost((key) => this.depose(key)) ?? (() => {});
    // Matches read from this node's files (a restart): held at their epoch there (0), deposed if another node held them since.
    for (const match of this.matches.values()) void this.owner?.hold(match);
  }

  /** Numbers, stores and hands on one derived event; null when it was stored before (a restored shard's repeat). */
  add(groupCode: string, matchKey: string, matchId: string, organizationId: string, derived: DerivedEvent): StoredEvent | null {
    let match = this.matches.get(matchKey);
    if (!match && this.released.has(matchKey)) return null;
    const epoch = this.options.epochOf?.(groupCode);
    if (this.owner?.isDeposed(matchKey, epoch)) return null; // derived by a shard that is about to be evicted
    const waiting = this.adopting.get(matchKey);
    if (waiting) {
      waiting.push([groupCode, matchKey, matchId, organizationId, derived]);
      return null;
    }
    if (!match && this.options.shared) {
      this.adopting.set(matchKey, [[groupCode, matchKey, matchId, organizationId, derived]]);
      void this.adopt(this.options.shared, matchKey, this.sharer?.hold(groupCode));
      return null;
    }
    if (!match) {
      match = emptyLog(matchKey, groupCode);
      this.matches.set(matchKey, match);
    }
    if (match.ended) return null;
    // A match run here at a higher epoch (adopted, or re-asserted after Redis lost it): its lease bounds delivery.
    if (epoch !== undefined && epoch > match.epoch) this.owner?.raise(match, epoch, false);
    // An operational event (order < 0: the main thread's, operational.ts) is never a repeat.
    if (derived.order >= 0) {
      if (isRepeat(match, derived)) return null; // a restored shard's (match-log.ts)
      match.lastOrder = derived.order;
    }
    const seq = match.events.length + 1;
    const event: MatchEvent = {
      id: `${matchKey}.${seq}`, type: derived.type, version: EVENTS_VERSION, seq, groupCode, matchId, matchKey,
      time: isoTime(derived.at), round: derived.round, data: derived.data,
    };
    if (derived.type === 'match_ended') {
      match.ended = true;
      const record = match.record.finish(event);
      event.data = { ...event.data, record };
      this.keep(record, match);
    } else {
      match.record.add(event);
    }
    const stored = storedEvent(event, JSON.stringify(event), { order: derived.order, organizationId, keptAt: Date.now() });
    this.options.files?.write(stored);
    if (derived.order >= 0) match.byOrder.set(derived.order, stored);
    match.events.push(stored);
    if (this.sharer) {
      const log = match;
      this.sharer.add(log, stored, () => {
        log.durable = Math.max(log.durable, seq);
        this.gate.run(log);
      });
    } else {
      match.durable = seq;
      this.gate.run(match);
    }
    return stored;
  }

  /**
   * Shared outbox: this node adopted the match (matches/takeover.ts), or only its outputs (an
   * orphan's: `outputsEpoch`, the epoch of its outputs lease): they are read from the outbox now, in
   * the same step, and held here.
   */
  takeOver(groupCode: string, matchKey: string, outputsEpoch?: number): void {
    const shared = this.options.shared;
    if (!shared) return;
    if (this.adopting.has(matchKey)) { // being read (the match's own adoption): its outputs' epoch applies once it is
      if (outputsEpoch !== undefined) this.adoptedOutputs.set(matchKey, Math.max(outputsEpoch, this.adoptedOutputs.get(matchKey) ?? 0));
      return;
    }
    const mine = this.matches.get(matchKey);
    // Here already: its lease lapsed here (a slow renewal) and this node adopted its outputs itself.
    if (mine) return void (outputsEpoch !== undefined && outputsEpoch > mine.epoch && this.owner?.raise(mine, outputsEpoch, true));
    // Delivered here already: settled again.
    if (this.released.has(matchKey)) return void this.options.outputs?.settleOutputs(matchKey).catch(() => undefined);
    this.owner?.reinstate(matchKey);
    this.adopting.set(matchKey, []);
    void this.adopt(shared, matchKey, this.sharer?.hold(groupCode), outputsEpoch);
  }

  /** A code's output delay changed: its matches' waiting events due under the new one are handed on now. */
  delayChanged(groupCode: string): void { this.gate.changed(this.matches.values(), groupCode); }

  /** The record kept (a failure is logged: the record is still in the match_ended event); fenced by the match's epoch with a shared store. */
  private keep(record: MatchRecord, match: MatchLog): void {
    // An adopted orphan's outputs (claimed) are fenced by their own epoch only: the code may run a newer match by now.
    const fence: OutputFence | undefined = this.options.shared ? { groupCode: match.groupCode, epoch: match.epoch, live: !match.claimed } : undefined;
    this.options.records.put(record, fence).catch((err: Error) => {
      if (err instanceof OutputFencedError) return this.depose(record.matchKey);
      this.log.error({ matchKey: record.matchKey, error: err.message }, 'match record not kept (it is in the match_ended event)');
    });
  }

  /** A match read from the shared outbox (taken over from another node), then the events derived meanwhile. */
  private async adopt(shared: EventOutbox, matchKey: string, done = () => {}, claimedEpoch?: number): Promise<void> {
    let cursors: Record<string, number> = {};
    let told = false;
    const groupCode = matchKey.slice(0, matchKey.lastIndexOf('-'));
    let epoch = claimedEpoch ?? this.options.epochOf?.(groupCode) ?? 0;
    let claimed = claimedEpoch !== undefined;
    // Its outputs adopted by this node meanwhile (takeOver while it is read): their lease's epoch, when higher.
    const adoptedHere = () => {
      const outputsEpoch = this.adoptedOutputs.get(matchKey) ?? 0;
      if (outputsEpoch > epoch) [epoch, claimed] = [outputsEpoch, true];
      this.adoptedOutputs.delete(matchKey);
    };
    try {
      // Its outputs lease, from before this node appends anything of it: lost a moment later, it is an outputs orphan.
      if (!claimed && await this.owner?.take(matchKey, epoch) === false && !this.adoptedOutputs.has(matchKey)) {
        this.log.warn({ matchKey, epoch }, 'event journal: another node holds this match\'s outputs at a higher epoch: not taken here');
        this.adopting.delete(matchKey);
        this.owner?.depose(matchKey, epoch);
        return done();
      }
      const [rows, read] = await Promise.all([shared.events(matchKey), shared.cursors(matchKey)]);
      cursors = read;
      adoptedHere(); // from here on this method does not wait: no takeOver comes between
      if (rows.length) {
        const match = logOf(rows.map(storedOf));
        match.epoch = epoch;
        match.claimed = claimed;
        // Handed on by the lost node, or not: a delayed match's wait for them begins again here (never early).
        match.handed = this.gate.duePrefix(match);
        this.matches.set(matchKey, match);
        // The endpoints' cursors first: handed on before them, its lanes would start at seq 1 (sent again).
        told = true;
        for (const listener of this.adoptListeners) listener(matchKey, cursors);
        this.gate.run(match);
        const last = match.ended ? match.events.at(-1) : undefined;
        const record = last ? eventOf(last).data.record as MatchRecord | undefined : undefined;
        if (record?.matchKey === matchKey) this.keep(record, match);
        this.log.info({ matchKey, events: rows.length }, 'event journal: match read from the shared outbox');
      }
    } catch (err) {
      this.log.error({ matchKey, error: (err as Error).message }, 'event journal: shared outbox unreadable; numbering from here');
    }
    adoptedHere();
    const waiting = this.adopting.get(matchKey) ?? [];
    this.adopting.delete(matchKey);
    if (!this.matches.has(matchKey)) {
      if (waiting.length === 0) { // an orphan with nothing stored: nothing to do
        this.options.outputs?.settleOutputs(matchKey).catch(() => undefined);
        return done();
      }
      const log = emptyLog(matchKey, waiting[0][0]);
      [log.epoch, log.claimed] = [epoch, claimed];
      this.matches.set(matchKey, log);
    }
    try {
      if (!told) for (const listener of this.adoptListeners) listener(matchKey, cursors);
      for (const args of waiting) this.add(...args);
    } finally {
      done(); // the appends of those are on their way, before any later snapshot write
    }
  }

  /** Shared outbox: another node holds the match's outputs (a write here was fenced): it leaves memory unsettled, nothing more of it goes from here. */
  depose(matchKey: string): void {
    const match = this.matches.get(matchKey);
    if (!match) return;
    this.matches.delete(matchKey);
    this.owner?.depose(matchKey, match.epoch);
    this.sharer?.forget(matchKey);
    this.log.warn({ matchKey, epoch: match.epoch }, 'event journal: another node holds this match\'s outputs now (a write was fenced): no more delivery from here');
  }

  /** How long this node may still deliver the match's events (ms; Infinity without a shared outbox; output-owner.ts). */
  outputsLeftMs(matchKey: string): number {
    const match = this.matches.get(matchKey);
    return match ? this.owner?.outputsLeftMs(match) ?? Infinity : 0;
  }

  /** The fence of a cursor move of this match (events/event-outbox.ts), undefined when it is not held here. */
  fenceOf(matchKey: string): OutputFence | undefined {
    const match = this.matches.get(matchKey);
    return match && this.owner?.fenceOf(match);
  }

  /** Shared outbox: resolves once the group's events so far are in it (undefined: they are); a snapshot waits for it (outbox-share.ts). */
  whenShared(groupCode: string): Promise<void> | undefined {
    return this.sharer?.whenShared(groupCode);
  }

  /** Told when a match was read from the shared outbox, with its endpoints' cursors there. */
  onAdopt(listener: (matchKey: string, cursors: Record<string, number>) => void): () => void {
    this.adoptListeners.add(listener);
    return () => this.adoptListeners.delete(listener);
  }

  /** An ended match every endpoint has: its events leave memory (the files and the record stay). */
  release(matchKey: string): void {
    const match = this.matches.get(matchKey);
    // Events still held back by the output delay stay until they are handed on.
    if (!match?.ended || match.handed < match.events.length) return;
    this.matches.delete(matchKey);
    this.sharer?.forget(matchKey);
    this.released.set(matchKey, storedAtOf(match));
    this.options.outputs?.settleOutputs(matchKey).catch(() => undefined);
  }

  /** The running match of a group code here (its key and latest round), or undefined. */
  runningOf(groupCode: string): { matchKey: string; round: number } | undefined {
    let found: MatchLog | undefined;
    for (const match of this.matches.values()) if (match.groupCode === groupCode && !match.ended) found = match;
    return found ? { matchKey: found.matchKey, round: found.events.at(-1)?.round ?? 0 } : undefined;
  }

  /** Whether the match is still kept (in memory, or released with its record within the retention). */
  knows(matchKey: string): boolean {
    return this.matches.has(matchKey) || this.released.has(matchKey);
  }

  /** Told of every new event, after it was stored. */
  subscribe(listener: (stored: StoredEvent) => void): () => void {
    return this.gate.subscribe(listener);
  }

  /** The events after the one with this id, within the resume window; null when it is not in it. */
  after(id: string): StoredEvent[] | null {
    return this.window_.after(id);
  }

  /** Delivery says how far every endpoint has each match's events (the last seq handled by all). */
  keepUntilDelivered(upTo: (matchKey: string) => number): void { this.deliveredUpTo = upTo; }

  /** Lets go of the events nothing here needs any more: written, handed on, shared, delivered to every endpoint (match-log.ts, letGo). Memory only (no files, no shared outbox): nothing goes. */
  prune(): void {
    if (!this.options.files && !this.options.shared) return;
    for (const m of this.matches.values()) letGo(m, Math.min(m.handed, m.durable, this.sharer ? m.shared : Infinity, this.deliveredUpTo(m.matchKey)));
  }

  close(): void {
    clearInterval(this.expireTimer);
    clearInterval(this.pruneTimer);
    this.offOutputsLost();
    this.sharer?.close();
    this.gate.close();
    this.options.files?.close();
  }

  private load(): void {
    if (!this.options.files) return;
    const { logs, window } = loadLogs(this.options.files, this.options.retentionMs, (m) => this.gate.duePrefix(m));
    for (const match of logs) this.matches.set(match.matchKey, match);
    for (const match of logs) if (match.handed < match.durable) this.gate.run(match);
    this.window_.reload(window);
    if (window.length) this.log.info({ events: window.length, matches: this.matches.size }, 'event journal loaded');
  }

  private expire(): void {
    const now = Date.now();
    const cutoff = now - this.options.retentionMs;
    for (const [key, storedAt] of this.released) if (storedAt < cutoff) this.released.delete(key);
    for (const [key, match] of this.matches) {
      if (!match.ended || storedAtOf(match) >= cutoff) continue;
      this.matches.delete(key);
      this.sharer?.forget(key);
      this.options.outputs?.settleOutputs(key).catch(() => undefined);
    }
    this.options.records.prune(now).catch((err: Error) => this.log.warn({ error: err.message }, 'match records past the retention not pruned'));
    const removed = this.options.files?.expire(this.options.retentionMs, now) ?? 0;
    if (removed) this.log.info({ files: removed }, 'event journal: files past the retention deleted');
  }
}
