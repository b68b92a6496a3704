// A node's events into the outbox shared by the nodes (REDIS_URL; events/event-outbox.ts), for the
// journal (journal.ts). The outbox stores seq n only right after n − 1, so one append that did not
// reach Redis (unreachable, or a reply later than REDIS_TIMEOUT_MS) would leave every later event of
// its match refused, and the loss of this node would lose them all. So a match whose append failed
// falls behind: its later events are told at once (delivered from this node, as before) but not
// appended; a catch-up reads what the outbox has after the last confirmed seq (a late reply's append
// may have run) and appends the rest in order, again with a backoff until Redis answers.
//
// While a match is behind, or its events are being read from the outbox (adoption, journal.ts), its
// group code is `pending`: its snapshots wait before they go to Redis (`whenShared`), because a node
// that takes the match over resumes from its snapshot and derives no event for what that state holds
// already: a snapshot ahead of the outbox would lose those events for good.
import { keptEvent } from './match-log.js';
import type { Logger } from '../base/log.js';
import { OutputFencedError, type EventOutbox, type OutputFence } from './event-outbox.js';
import type { StoredEvent } from './types.js';

/** What this module reads and keeps of a match's log (match-log.ts). */
export interface SharedLog {
  matchKey: string;
  groupCode: string;
  events: ReadonlyArray<StoredEvent | undefined>;
  /** The events up to this seq are in the shared outbox (confirmed). */
  shared: number;
  /** Tells happen in seq order: each event's tell is chained after the one before. */
  tail: Promise<void>;
  /** This node's epoch for the match's outputs: the appends carry it (a deposed node's are refused). */
  epoch: number;
}

/** A group whose snapshots wait: how many reasons (a match behind, an adoption), and the promise they wait on. */
interface Pending { count: number; done: Promise<void>; resolve: () => void }

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5000;

export class OutboxShare {
  /** Matches behind the outbox: their catch-up's timer and next delay. */
  private readonly behind = new Map<string, { log: SharedLog; timer: NodeJS.Timeout | undefined; delayMs: number; done: () => void }>();
  /** Group codes whose snapshots wait (a match behind, or being read): how many reasons, and who waits. */
  private readonly pending = new Map<string, Pending>();
  private closed = false;

  /** `deposed`: an append was refused by the fence (another node holds the match's outputs now). */
  constructor(private readonly outbox: EventOutbox, private readonly log: Logger, private readonly deposed: (matchKey: string) => void) {}

  /** The next event of `log`, appended (unless the match is behind), then `told` in seq order. */
  add(log: SharedLog, stored: StoredEvent, told: () => void): void {
    const appended = this.behind.has(log.matchKey) ? undefined : this.append(log, stored);
    log.tail = (appended ? log.tail.then(() => appended) : log.tail).then(told).catch((err: Error) => {
      this.log.error({ eventId: stored.id, error: err.message }, 'event journal: a listener failed'); // the chain goes on
    });
  }

  /** Resolves once the group's events so far are in the outbox; undefined when they are (the usual case). */
  whenShared(groupCode: string): Promise<void> | undefined {
    return this.pending.get(groupCode)?.done; // one promise per wait, however many snapshots wait on it
  }

  /** The group's snapshots wait until `done()` (the journal reads a match from the outbox meanwhile). */
  hold(groupCode: string): () => void {
    let p = this.pending.get(groupCode);
    if (!p) {
      let resolve = () => {};
      const done = new Promise<void>((r) => { resolve = r; });
      this.pending.set(groupCode, (p = { count: 0, done, resolve }));
    }
    p.count++;
    let once = false;
    return () => {
      if (once) return;
      once = true;
      if (--p.count > 0) return;
      this.pending.delete(groupCode);
      p.resolve();
    };
  }

  /** The match is gone from memory: no catch-up any more (what the outbox lacks stays on this node). */
  forget(matchKey: string): void {
    const b = this.behind.get(matchKey);
    if (!b) return;
    clearTimeout(b.timer);
    this.behind.delete(matchKey);
    b.done();
  }

  close(): void {
    this.closed = true;
    for (const key of [...this.behind.keys()]) this.forget(key);
    for (const [code, p] of this.pending) {
      this.pending.delete(code);
      p.resolve();
    }
  }

  private async append(log: SharedLog, stored: StoredEvent): Promise<void> {
    try {
      const added = await this.outbox.append({ matchKey: stored.matchKey, seq: stored.seq, order: stored.order, organizationId: stored.organizationId, text: stored.text }, fenceOf(log));
      if (added) log.shared = Math.max(log.shared, stored.seq);
      else if (!this.behind.has(log.matchKey)) this.log.error({ eventId: stored.id }, 'event journal: another node stored this seq already (two owners of one match?)');
      // else: refused after an earlier event that failed; the catch-up appends it
    } catch (err) {
      if (err instanceof OutputFencedError) return this.deposed(log.matchKey);
      this.log.warn({ eventId: stored.id, error: (err as Error).message }, 'event journal: not in the shared outbox yet; appended again once Redis answers');
      this.fallBehind(log);
    }
  }

  private fallBehind(log: SharedLog): void {
    if (this.behind.has(log.matchKey) || this.closed) return;
    const b = { log, timer: undefined as NodeJS.Timeout | undefined, delayMs: FIRST_RETRY_MS, done: this.hold(log.groupCode) };
    this.behind.set(log.matchKey, b);
    b.timer = setTimeout(() => void this.catchUp(log.matchKey), b.delayMs).unref();
  }

  private async catchUp(matchKey: string): Promise<void> {
    const b = this.behind.get(matchKey);
    if (!b) return;
    const log = b.log;
    try {
      await this.skipStored(log);
      while (log.shared < log.events.length) {
        const stored = keptEvent(log, log.shared);
        if (await this.outbox.append({ matchKey, seq: stored.seq, order: stored.order, organizationId: stored.organizationId, text: stored.text }, fenceOf(log))) {
          log.shared = stored.seq;
        } else if (!await this.skipStored(log)) {
          // Refused, and not because a late append of ours ran meanwhile: another node numbered it.
          this.log.error({ eventId: stored.id }, 'event journal: another node stored this seq already (two owners of one match?)');
          break;
        }
      }
    } catch (err) {
      if (this.behind.get(matchKey) !== b) return;
      if (err instanceof OutputFencedError) {
        this.forget(matchKey);
        return this.deposed(matchKey);
      }
      b.delayMs = Math.min(MAX_RETRY_MS, b.delayMs * 2);
      b.timer = setTimeout(() => void this.catchUp(matchKey), b.delayMs).unref();
      this.log.debug({ matchKey, error: (err as Error).message }, 'event journal: shared outbox catch-up retried');
      return;
    }
    if (this.behind.get(matchKey) !== b) return;
    this.behind.delete(matchKey);
    b.done();
    this.log.info({ matchKey, shared: log.shared }, 'event journal: shared outbox caught up');
  }

  /** What the outbox has after the confirmed part, as this node numbered it (an append whose answer came late may have run): confirmed. Whether any was. */
  private async skipStored(log: SharedLog): Promise<boolean> {
    const before = log.shared;
    for (const row of await this.outbox.events(log.matchKey, log.shared)) {
      if (row.seq !== log.shared + 1 || row.text !== log.events[log.shared]?.text) break;
      log.shared = row.seq;
    }
    return log.shared > before;
  }
}

/** An append is always of a running match's event (a match_ended's included): the lease's epoch fences it too. */
function fenceOf(log: SharedLog): OutputFence {
  return { groupCode: log.groupCode, epoch: log.epoch, live: true };
}
