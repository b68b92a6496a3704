// FRAME_EDGE=auto's rule: the main thread's batch windows (main/shards/batches.ts: a quiet service's
// observer and auxiliary messages wait up to the interval's end, a busy one's `batchMs`; the shard
// sends a batch's frames right after it, src/workers/shard/thread.ts).
// Node's timers are faked so that the windows are exact; the posts are the real class's.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ShardCmd } from '../../../src/protocol/shard-messages.js';
import { AUTO_EDGE_BUSY, FRAMES_WAIT_MAX, FRAMES_WAIT_RATIO, FRAMES_WAIT_WINDOW, ShardBatches } from '../../../src/main/shards/batches.js';

const INTERVAL = 100;
const BATCH_MS = 2;
/** Time within one interval (a multiple of INTERVAL), so that counting windows are predictable. */
const T0 = 1_700_000_000_000;

function batches(quietMs: number) {
  const posts: { shard: number; cmds: ShardCmd[] }[] = [];
  const b = new ShardBatches(2, BATCH_MS, (shard, cmds) => posts.push({ shard, cmds }), quietMs);
  /** Observer messages posted so far, by count. */
  const observed = () => posts.reduce((n, p) => n + p.cmds.reduce((k, c) => k + (c.t === 'obs' ? c.count : 0), 0), 0);
  return { b, posts, observed };
}

describe('ShardBatches windows (FRAME_EDGE=auto)', () => {
  beforeEach(() => { vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate'] }); });
  afterEach(() => { vi.useRealTimers(); });

  it('quiet: observer and auxiliary messages wait one interval and go as one batch per shard', () => {
    const { b, posts, observed } = batches(INTERVAL);
    b.obs(0, 'A', '{}', T0);
    b.aux(1, ['B'], [1], 'm', 'p', '{}', T0 + 10);
    vi.advanceTimersByTime(10 + BATCH_MS);
    b.obs(0, 'C', '{}', T0 + 40);
    vi.advanceTimersByTime(INTERVAL - 10 - BATCH_MS - 1);
    expect(posts).toHaveLength(0); // 99 ms after the first: still waiting
    vi.advanceTimersByTime(1);
    expect(posts.map((p) => p.shard)).toEqual([0, 1]);
    expect(observed()).toBe(2);
    expect(posts[1].cmds[0]).toMatchObject({ t: 'aux', groupCodes: [['B']] });
  });

  it('the quiet window ends at the interval\'s end, not one interval after the first message', () => {
    const { b, observed } = batches(INTERVAL);
    b.obs(0, 'A', '{}', T0 + 70);
    vi.advanceTimersByTime(29);
    expect(observed()).toBe(0);
    vi.advanceTimersByTime(1); // 30 ms later: the interval's end
    expect(observed()).toBe(1);
  });

  it('a command other than a message never waits for the quiet window, and takes the waiting messages along', () => {
    const { b, posts, observed } = batches(INTERVAL);
    b.obs(0, 'A', '{}', T0);
    b.send(0, { t: 'summaries', on: true });
    vi.advanceTimersByTime(BATCH_MS);
    expect(posts).toHaveLength(1);
    expect(observed()).toBe(1);
    vi.advanceTimersByTime(INTERVAL);
    expect(posts).toHaveLength(1); // the quiet timer was cleared with the flush
  });

  it('busy: from the AUTO_EDGE_BUSY-th message of an interval the window is batchMs, and stays so through the next interval', () => {
    const { b, posts, observed } = batches(INTERVAL);
    for (let i = 0; i < AUTO_EDGE_BUSY - 1; i++) b.obs(i % 2, 'G' + i, '{}', T0 + 1);
    vi.advanceTimersByTime(BATCH_MS);
    expect(posts).toHaveLength(0); // 49: quiet, the window is the interval
    b.obs(0, 'G49', '{}', T0 + 2); // the 50th cuts the quiet window short
    vi.advanceTimersByTime(BATCH_MS);
    expect(observed()).toBe(AUTO_EDGE_BUSY);
    b.obs(0, 'N', '{}', T0 + INTERVAL + 5); // the next interval: the previous one was busy
    vi.advanceTimersByTime(BATCH_MS);
    expect(observed()).toBe(AUTO_EDGE_BUSY + 1);
    b.obs(0, 'Q', '{}', T0 + 3 * INTERVAL); // two intervals later (one message in the last): quiet again
    vi.advanceTimersByTime(BATCH_MS);
    expect(observed()).toBe(AUTO_EDGE_BUSY + 1);
    vi.advanceTimersByTime(INTERVAL);
    expect(observed()).toBe(AUTO_EDGE_BUSY + 2);
  });

  it('busy, with every match sending FRAMES_WAIT_RATIO messages an interval or more for a second: the next interval\'s messages wait for its end', () => {
    const { b, observed } = batches(INTERVAL);
    const matches = AUTO_EDGE_BUSY; // busy whatever the rate
    const perMatch = Math.ceil(FRAMES_WAIT_RATIO);
    const fastInterval = (k: number) => {
      for (let i = 0; i < matches * perMatch; i++) b.obs(i % 2, 'G' + (i % matches), '{}', T0 + k * INTERVAL + 1);
    };
    for (let k = 0; k < FRAMES_WAIT_WINDOW; k++) {
      const before = observed();
      fastInterval(k);
      vi.advanceTimersByTime(BATCH_MS); // a second not yet full: short windows
      expect(observed()).toBe(before + matches * perMatch);
      vi.advanceTimersByTime(INTERVAL - BATCH_MS);
    }
    const first = observed();
    b.obs(0, 'G0', '{}', T0 + FRAMES_WAIT_WINDOW * INTERVAL + 5); // a whole second at that rate before it
    vi.advanceTimersByTime(BATCH_MS);
    expect(observed()).toBe(first); // it waits for the interval's end
    vi.advanceTimersByTime(INTERVAL - 5 - BATCH_MS);
    expect(observed()).toBe(first + 1);
  });

  it('busy with one message a match an interval: the windows stay batchMs (the leading edge keeps its latency)', () => {
    const { b, observed } = batches(INTERVAL);
    const matches = 2 * AUTO_EDGE_BUSY;
    for (let i = 0; i < matches; i++) b.obs(i % 2, 'G' + i, '{}', T0 + 1);
    vi.advanceTimersByTime(BATCH_MS);
    b.obs(0, 'G0', '{}', T0 + INTERVAL + 5);
    vi.advanceTimersByTime(BATCH_MS);
    expect(observed()).toBe(matches + 1);
  });

  it('at FRAMES_WAIT_MAX messages an interval or more nothing is held, however fast each match sends', () => {
    const { b, observed } = batches(INTERVAL);
    const perMatch = Math.ceil(FRAMES_WAIT_RATIO);
    const matches = Math.ceil(FRAMES_WAIT_MAX / perMatch);
    for (let k = 0; k <= FRAMES_WAIT_WINDOW; k++) {
      const before = observed();
      for (let i = 0; i < matches * perMatch; i++) b.obs(i % 2, 'G' + (i % matches), '{}', T0 + k * INTERVAL + 1);
      vi.advanceTimersByTime(BATCH_MS);
      expect(observed()).toBe(before + matches * perMatch); // short windows, the last second's rate notwithstanding
      vi.advanceTimersByTime(INTERVAL - BATCH_MS);
    }
  });

  it('bursts at game pace (a few matches sending many at once, the others not this interval) keep the leading edge', () => {
    const { b, observed } = batches(INTERVAL);
    const matches = 100;
    for (let i = 0; i < matches; i++) b.obs(i % 2, 'G' + i, '{}', T0 + 1); // every match sent in the last second
    vi.advanceTimersByTime(BATCH_MS);
    // Busy, 10 a sender and 2 for each match that sent in the last second, but from a fifth of those.
    const burst = 10;
    const bursting = matches / 5;
    for (let i = 0; i < bursting * burst; i++) b.obs(i % 2, 'G' + (i % bursting), '{}', T0 + 5 * INTERVAL + 1);
    vi.advanceTimersByTime(BATCH_MS);
    const before = observed();
    expect(before).toBe(matches + bursting * burst);
    b.obs(0, 'G0', '{}', T0 + 6 * INTERVAL + 5); // the next interval: not held
    vi.advanceTimersByTime(BATCH_MS);
    expect(observed()).toBe(before + 1);
  });

  it('without a quiet window (leading, cycle) every window is batchMs', () => {
    const { b, observed } = batches(0);
    b.obs(0, 'A', '{}', T0);
    vi.advanceTimersByTime(BATCH_MS);
    expect(observed()).toBe(1);
  });
});
