// Every received event goes through its socket's budget (budget.ts) before anything else is done
// with it: forwarded now when a token is free and nothing waits before it; else it waits in the
// socket's backlog if the socket has a session (a real client catching up after a reconnection),
// else, or past the backlog's bounds, it is shed (dropped `rate_limited`, logged once per socket).
// One timer forwards the backlogs as their tokens come. A resumed session takes its old socket's
// backlog over; an ended session's backlog is not applied; at shutdown, what waits is applied.
import { BACKLOG_DRAIN_MAX_MS, BACKLOG_DRAIN_MIN_MS } from '../base/limits.js';
import type { BudgetLimits } from './budget.js';
import type { IngestCounters, SocketReplies, SocketState } from './socket-state.js';
import type { LoopBeat } from '../base/loop-beat.js';

export interface BacklogDeps {
  limits: BudgetLimits;
  /** The main thread's heartbeat: the credit a stall of the thread gives every budget (base/loop-beat.ts). */
  stall: Pick<LoopBeat, 'credit'>;
  counters: IngestCounters;
  replies: SocketReplies;
  /** An admitted event: to its handler. */
  handle(state: SocketState, event: string, args: unknown[]): void;
}

export class IngestBacklog {
  /** Sockets with events waiting (also after they disconnected: what was received is applied). */
  private readonly waiting = new Set<SocketState>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: BacklogDeps) {}

  /** One received event (see the top of this file). */
  receive(state: SocketState, event: string, args: unknown[]): void {
    const now = Date.now();
    state.lastEventAt = now;
    const { counters } = this.deps;
    counters.eventsIn[event] = (counters.eventsIn[event] ?? 0) + 1;
    const admission = state.budget.admit(now, this.deps.stall.credit(now, this.deps.limits.rate), event, args, state.session !== null);
    if (admission === 'now') return this.deps.handle(state, event, args);
    if (admission === 'shed') return this.deps.replies.drop(state, 'rate_limited');
    counters.backlog.queued++;
    counters.backlog.peak = Math.max(counters.backlog.peak, state.budget.waiting);
    this.waiting.add(state);
    this.arm();
  }

  /** Forwards the backlogs every 1000 / INGEST_RATE_PER_SOCKET ms (BACKLOG_DRAIN_MIN_MS–BACKLOG_DRAIN_MAX_MS). */
  private arm(): void {
    if (this.timer || this.waiting.size === 0) return;
    const every = Math.min(BACKLOG_DRAIN_MAX_MS, Math.max(BACKLOG_DRAIN_MIN_MS, Math.ceil(1000 / this.deps.limits.rate)));
    this.timer = setTimeout(() => {
      this.timer = null;
      const now = Date.now();
      const credit = this.deps.stall.credit(now, this.deps.limits.rate);
      for (const state of this.waiting) {
        for (const item of state.budget.due(now, credit)) this.deps.handle(state, item.event, item.args);
        if (state.budget.waiting === 0) this.waiting.delete(state);
      }
      this.arm();
    }, every);
  }

  /**
   * A socket took over session `sessionId`: what the session's earlier sockets received and still
   * have waiting moves to it, ahead of anything it sends. Returns how many events wait for it.
   */
  handOver(sessionId: string, to: SocketState): number {
    for (const old of [...this.waiting].filter((st) => st !== to && st.session?.id === sessionId)) {
      old.budget.handOver(to.budget);
      this.waiting.delete(old);
    }
    const n = to.budget.waiting;
    if (n > 0) {
      this.waiting.add(to);
      this.arm();
    }
    return n;
  }

  /** Sessions ended: what their sockets still have waiting is not applied (counted `session_ended`). */
  clearEnded(sessionIds: ReadonlySet<string>): void {
    for (const state of this.waiting) {
      if (!state.session || !sessionIds.has(state.session.id)) continue;
      const n = state.budget.clear();
      this.waiting.delete(state);
      this.deps.replies.dropEnded(state, n);
    }
  }

  /** Events waiting now (metrics). */
  count(): number {
    let n = 0;
    for (const state of this.waiting) n += state.budget.waiting;
    return n;
  }

  /** Shutdown: what was received and still waits goes to the shards now (the clients will not send it again). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const state of this.waiting) for (const item of state.budget.takeAll()) this.deps.handle(state, item.event, item.args);
    this.waiting.clear();
  }
}
