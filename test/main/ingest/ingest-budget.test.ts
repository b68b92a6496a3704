// The per-socket budget of the ingestion listener (src/main/ingest/budget.ts): a token bucket in
// front of a bounded backlog. What the service test (test/main/ingest/abuse.test.ts) cannot see from outside:
// the backlog never holds more than its bounds, messages leave it in arrival order at the rate, a
// socket without a session never queues, and a resumed session's socket takes the waiting ones
// over, ahead of its own. Time is a parameter: no waiting.
import { describe, expect, it } from 'vitest';
import { argsSize, SocketBudget, type BudgetLimits } from '../../../src/main/ingest/budget.js';

const T0 = 1_000_000;
const limits = (over: Partial<BudgetLimits> = {}): BudgetLimits => ({ rate: 200, burst: 100, backlogMessages: 3600, backlogBytes: 2_097_152, largestMessage: 1_000_000, ...over });
const msg = (i: number): [string, unknown[]] => ['obs_data', [`payload-${i}`]];

describe('socket budget', () => {
  it('takes the burst at once, then queues up to the backlog bound, then sheds; never more waiting than the bound', () => {
    const b = new SocketBudget(limits({ backlogMessages: 50 }), T0);
    const counts = { now: 0, queued: 0, shed: 0 };
    let most = 0;
    for (let i = 0; i < 500; i++) {
      counts[b.admit(T0, 0, ...msg(i), true)]++;
      most = Math.max(most, b.waiting);
    }
    expect(counts).toEqual({ now: 100, queued: 50, shed: 350 });
    expect(most).toBe(50);
    expect(b.waiting).toBe(50);
  });

  it('bounds the waiting bytes too (a payload that is not a string counts as the largest message)', () => {
    expect(argsSize(['abcd'], 1000)).toBe(4);
    expect(argsSize([{ a: 1 }], 1000)).toBe(1000);
    const b = new SocketBudget(limits({ burst: 1, backlogBytes: 25 }), T0);
    expect(b.admit(T0, 0, 'obs_data', ['x'], true)).toBe('now');
    expect(b.admit(T0, 0, 'obs_data', ['0123456789'], true)).toBe('queued');
    expect(b.admit(T0, 0, 'obs_data', ['0123456789'], true)).toBe('queued');
    expect(b.admit(T0, 0, 'obs_data', ['0123456789'], true)).toBe('shed'); // 30 > 25
    expect(b.admit(T0, 0, 'obs_data', ['01234'], true)).toBe('queued'); // 25
    expect(b.admit(T0, 0, 'obs_data', [{ big: true }], true)).toBe('shed');
  });

  it('a socket without a session never queues: past its tokens, it is shed', () => {
    const b = new SocketBudget(limits({ burst: 3 }), T0);
    expect([0, 1, 2, 3, 4].map((i) => b.admit(T0, 0, ...msg(i), false))).toEqual(['now', 'now', 'now', 'shed', 'shed']);
    expect(b.waiting).toBe(0);
  });

  it('forwards what waits in arrival order, one per token as the rate gives them; new messages wait behind the backlog', () => {
    const b = new SocketBudget(limits({ rate: 100, burst: 2 }), T0);
    for (let i = 0; i < 12; i++) b.admit(T0, 0, ...msg(i), true);
    expect(b.waiting).toBe(10);
    const drained = (from: number, to: number) => {
      const out: unknown[] = [];
      for (let t = from; t <= to; t += 10) out.push(...b.due(t, 0).map((w) => w.args[0])); // the drain timer: every 1000 / rate ms
      return out;
    };
    expect(drained(T0 + 10, T0 + 50)).toEqual(['payload-2', 'payload-3', 'payload-4', 'payload-5', 'payload-6']); // 100/s: 5 in 50 ms
    // A message arriving now waits behind the five still queued, although a token came meanwhile.
    expect(b.admit(T0 + 60, 0, ...msg(12), true)).toBe('queued');
    expect(drained(T0 + 70, T0 + 200)).toEqual(['payload-7', 'payload-8', 'payload-9', 'payload-10', 'payload-11', 'payload-12']);
    expect(b.waiting).toBe(0);
    // Idle, the bucket refills to its size, not beyond (without a stall bonus).
    expect(b.due(T0 + 10_000, 0)).toEqual([]);
    expect([13, 14, 15].map((i) => b.admit(T0 + 10_000, 0, ...msg(i), false))).toEqual(['now', 'now', 'shed']);
  });

  it('a stall bonus lets the bucket hold what the rate gave over the stall, beyond its size', () => {
    const b = new SocketBudget(limits({ rate: 100, burst: 2 }), T0);
    b.admit(T0, 0, ...msg(0), false);
    b.admit(T0, 0, ...msg(1), false);
    expect([2, 3, 4, 5, 6, 7].map((i) => b.admit(T0 + 1000, 3, ...msg(i), false))).toEqual(['now', 'now', 'now', 'now', 'now', 'shed']);
  });

  it('handOver gives the waiting messages to the resumed socket\'s budget, ahead of its own; takeAll empties it', () => {
    const old = new SocketBudget(limits({ burst: 1 }), T0);
    for (let i = 0; i < 4; i++) old.admit(T0, 0, ...msg(i), true); // 0 now, 1..3 wait
    const fresh = new SocketBudget(limits({ burst: 1 }), T0);
    fresh.admit(T0, 0, ...msg(100), true); // now
    fresh.admit(T0, 0, ...msg(101), true); // waits
    old.handOver(fresh);
    expect(old.waiting).toBe(0);
    expect(fresh.waiting).toBe(4);
    expect(fresh.takeAll().map((w) => w.args[0])).toEqual(['payload-1', 'payload-2', 'payload-3', 'payload-101']);
    expect(fresh.waiting).toBe(0);
    expect(fresh.clear()).toBe(0);
  });
});
