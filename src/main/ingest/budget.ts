// The per-socket budget of the ingestion listener: a token bucket (INGEST_RATE_PER_SOCKET refill,
// INGEST_BURST_PER_SOCKET size) in front of a bounded backlog. An event without a token waits in
// the backlog and is forwarded, in arrival order, as tokens come; only what exceeds the backlog's
// bounds (INGEST_BACKLOG_PER_SOCKET messages, INGEST_BACKLOG_BYTES_PER_SOCKET characters) is shed.
//
// Why a backlog: socket.io-client buffers every emit while it is disconnected and sends them all at
// once after its reconnection (docs/client-contract.md 1.5), so a real observer back from an outage arrives as a
// burst of everything it sent meanwhile. Shedding that burst loses match data. Queueing it costs a
// flooder nothing more than before: its socket still gets no more than the rate forwarded (so no
// more of its shard's time), its waiting messages are bounded in count and size, and the rest is
// shed as before.
import { RawPayload } from '../sockets/ingest-parser.js';

export interface BudgetLimits {
  /** Tokens per second. */
  rate: number;
  /** Bucket size. */
  burst: number;
  /** Most messages waiting; 0: no backlog, an event without a token is shed. */
  backlogMessages: number;
  /** Most characters (string payloads, and objects' JSON text) waiting; other payloads count as `largestMessage`. */
  backlogBytes: number;
  /** MAX_MESSAGE_BYTES: what a payload that is not a string counts for (its real size is not known here). */
  largestMessage: number;
}

export interface Waiting {
  event: string;
  args: unknown[];
  size: number;
}

export type Admission = 'now' | 'queued' | 'shed';

/** The size an event's arguments count for in the backlog. */
export function argsSize(args: unknown[], largestMessage: number): number {
  let n = 0;
  for (const a of args) {
    if (typeof a === 'string') n += a.length;
    else if (a instanceof RawPayload) n += a.text.length;
    else if (Buffer.isBuffer(a) || a instanceof ArrayBuffer) n += a.byteLength;
    else if (a !== null && typeof a === 'object') n += largestMessage;
    else n += 8;
  }
  return n;
}

export class SocketBudget {
  private tokens: number;
  private tokensAt: number;
  private queue: Waiting[] = [];
  private head = 0;
  /** Sum of the sizes waiting. */
  private bytes = 0;

  constructor(private readonly limits: BudgetLimits, now: number) {
    this.tokens = limits.burst;
    this.tokensAt = now;
  }

  get waiting(): number {
    return this.queue.length - this.head;
  }

  /**
   * Refill by the time passed, up to the bucket size (plus `bonus`: what the rate gave over a stall
   * of the main thread, see IngestServer).
   */
  private refill(now: number, bonus: number): void {
    const elapsed = now - this.tokensAt;
    if (elapsed <= 0) return;
    const { rate, burst } = this.limits;
    this.tokens = Math.min(burst + bonus, this.tokens + (elapsed * rate) / 1000);
    this.tokensAt = now;
  }

  /**
   * An event arrives: forwarded now (a token is free and nothing waits before it), queued behind
   * what waits (`mayQueue`: the socket has a session; others are never queued), or shed.
   */
  admit(now: number, bonus: number, event: string, args: unknown[], mayQueue: boolean): Admission {
    this.refill(now, bonus);
    if (this.waiting === 0 && this.tokens >= 1) {
      this.tokens -= 1;
      return 'now';
    }
    if (!mayQueue) return 'shed';
    const size = argsSize(args, this.limits.largestMessage);
    if (this.waiting >= this.limits.backlogMessages || this.bytes + size > this.limits.backlogBytes) return 'shed';
    this.queue.push({ event, args, size });
    this.bytes += size;
    return 'queued';
  }

  /** The waiting events whose turn has come, oldest first; each takes a token. */
  due(now: number, bonus: number): Waiting[] {
    this.refill(now, bonus);
    const out: Waiting[] = [];
    while (this.waiting > 0 && this.tokens >= 1) {
      const item = this.queue[this.head];
      this.queue[this.head++] = undefined as unknown as Waiting;
      this.bytes -= item.size;
      this.tokens -= 1;
      out.push(item);
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) this.compact();
    return out;
  }

  /** Everything waiting, oldest first, without tokens (shutdown: what was received goes to the shards). */
  takeAll(): Waiting[] {
    const out = this.queue.slice(this.head);
    this.clear();
    return out;
  }

  /** Hands what waits to another budget (the session's new socket), in order, ahead of what waits there. */
  handOver(to: SocketBudget): void {
    if (this.waiting === 0) return;
    const moved = this.queue.slice(this.head);
    to.queue = moved.concat(to.queue.slice(to.head));
    to.head = 0;
    to.bytes += this.bytes;
    this.clear();
  }

  /** Forgets what waits; returns how many events that was. */
  clear(): number {
    const n = this.waiting;
    this.queue = [];
    this.head = 0;
    this.bytes = 0;
    return n;
  }

  private compact(): void {
    this.queue = this.queue.slice(this.head);
    this.head = 0;
  }
}
