// Writes of match records and webhook dead letters that failed (Redis unreachable or too slow, a
// full disk) are tried again until they land (docs/events.md, "What is kept where"): the first
// attempt goes at once; a failed one joins a queue in this process, tried in order with a back-off
// (FIRST_DELAY_MS doubling up to MAX_DELAY_MS), the queue moving on only once its head landed. The
// queue is bounded (MAX_PENDING per kind of write: a record is ~35 kB): past it the oldest pending
// write is given up, with an error log line. The queue is memory only: writes still pending when the
// process stops are lost (each is logged when it first fails; a record is also in its match_ended
// event, kept with the events). The stores are wrapped (retryingRecords, retryingDeadLetters), so
// their callers (journal.ts, delivery.ts) see a put or an add that never fails.
import type { Logger } from '../base/log.js';
import { OutputFencedError, type OutputFence } from './event-outbox.js';
import type { DeadLetter, DeadLetterStore, MatchRecord, RecordStore } from './record-store.js';

const FIRST_DELAY_MS = 250;
const MAX_DELAY_MS = 5000;
const MAX_PENDING = 1000;

export interface WriteRetryOptions {
  log: Logger;
  /** What is written (log lines): 'match record' or 'dead letter'. */
  what: string;
  firstDelayMs?: number;
  maxDelayMs?: number;
  maxPending?: number;
}

interface Pending { key: string; write: () => Promise<void>; attempts: number }

export class WriteRetry {
  private readonly queue: Pending[] = [];
  private timer: NodeJS.Timeout | undefined;
  private delay: number;
  private running = false;
  private closed = false;

  constructor(private readonly options: WriteRetryOptions) {
    this.delay = this.firstDelay;
  }

  /** Writes still waiting to land. */
  get pending(): number {
    return this.queue.length;
  }

  /** Attempts made so far of the oldest write waiting (0: none waits). */
  get headAttempts(): number {
    return this.queue[0]?.attempts ?? 0;
  }

  /**
   * Tries the write now (behind the pending ones, when there are any); rejects only when Redis
   * refused it as a deposed owner's (OutputFencedError: never tried again, the caller deposes).
   */
  async write(key: string, write: () => Promise<void>): Promise<void> {
    if (this.queue.length === 0 && !this.closed) {
      try {
        await write();
        return;
      } catch (err) {
        if (err instanceof OutputFencedError) throw err;
        this.options.log.warn({ key, error: (err as Error).message }, `${this.options.what} not kept yet: tried again until it lands`);
      }
    }
    this.enqueue({ key, write, attempts: 1 });
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.queue.length) this.options.log.error({ pending: this.queue.length, keys: this.queue.slice(0, 20).map((p) => p.key) }, `${this.options.what}s not kept: the process stops before they landed`);
    this.queue.length = 0;
  }

  private get firstDelay(): number {
    return this.options.firstDelayMs ?? FIRST_DELAY_MS;
  }

  private enqueue(p: Pending): void {
    if (this.closed) return;
    this.queue.push(p);
    const max = this.options.maxPending ?? MAX_PENDING;
    while (this.queue.length > max) {
      const dropped = this.queue.shift()!;
      this.options.log.error({ key: dropped.key, attempts: dropped.attempts }, `${this.options.what} given up: more than ${max} writes waiting`);
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.running || this.closed || this.queue.length === 0) return;
    this.timer = setTimeout(() => { this.timer = undefined; void this.drain(); }, this.delay);
    this.timer.unref();
  }

  /** The queue in order while each write lands; the back-off doubles after a failure and starts again after a success. */
  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length && !this.closed) {
        const head = this.queue[0];
        try {
          await head.write();
        } catch (err) {
          if (err instanceof OutputFencedError) { // another node owns the match's outputs now: its write, not ours
            this.queue.shift();
            this.options.log.warn({ key: head.key }, `${this.options.what} not kept: another node owns the match's outputs now`);
            continue;
          }
          head.attempts++;
          this.delay = Math.min(this.options.maxDelayMs ?? MAX_DELAY_MS, this.delay * 2);
          return;
        }
        if (this.queue[0] === head) this.queue.shift();
        this.delay = this.firstDelay;
        this.options.log.info({ key: head.key, attempts: head.attempts + 1 }, `${this.options.what} kept after a failed write`);
      }
    } finally {
      this.running = false;
      this.schedule();
    }
  }
}

/** The record store, its puts tried again until they land. */
export function retryingRecords(store: RecordStore, retry: WriteRetry): RecordStore {
  return {
    put: (record: MatchRecord, fence?: OutputFence) => retry.write(record.matchKey, () => store.put(record, fence)),
    list: (filter) => store.list(filter),
    get: (matchKey) => store.get(matchKey),
    prune: (now) => store.prune(now),
    close: () => { retry.close(); store.close(); },
  };
}

/** The dead-letter store, its adds tried again until they land. */
export function retryingDeadLetters(store: DeadLetterStore, retry: WriteRetry): DeadLetterStore {
  return {
    add: (letter: DeadLetter) => retry.write(`${letter.endpointId} ${letter.eventId}`, () => store.add(letter)),
    list: () => store.list(),
    remove: (endpointId, eventId) => store.remove(endpointId, eventId),
    close: () => { retry.close(); store.close(); },
  };
}
