// The main thread's heartbeat (src/main/base/loop-beat.ts): each beat's lateness is the loop's delay
// (/metrics ods_nodejs_eventloop_lag_*), and a beat late by more than one interval is a stall whose
// rate's worth the ingest budgets may hold for STALL_CREDIT_MS. Time is vitest's fake clock.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LoopBeat } from '../../../src/main/base/loop-beat.js';
import { STALL_BEAT_MS, STALL_CREDIT_MS } from '../../../src/main/base/limits.js';

afterEach(() => { vi.useRealTimers(); });

describe('the main thread\'s heartbeat', () => {
  it('reads 0 while its beats are on time, a late beat\'s lateness, and starts again at each take', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance', 'Date'] });
    const beat = new LoopBeat();
    vi.advanceTimersByTime(10 * STALL_BEAT_MS); // ten beats, each on time
    expect(beat.takeDelays()).toEqual({ min: 0, max: 0, mean: 0, stddev: 0, p50: 0, p90: 0, p99: 0 });
    // The thread busy for 230 ms: the next beat comes 230 ms late (the clock moved without the timer).
    const at = performance.now();
    vi.setSystemTime(Date.now() + 230);
    beat.beat(at + STALL_BEAT_MS + 230, Date.now());
    vi.advanceTimersByTime(STALL_BEAT_MS);
    const d = beat.takeDelays();
    expect(d.max).toBeCloseTo(0.23, 3);
    expect(d.p99).toBeCloseTo(0.23, 3);
    expect(d.min).toBe(0);
    expect(beat.takeDelays().max).toBe(0); // taken: a new count
    beat.close();
  });

  it('gives the budgets the rate\'s worth of a stall for STALL_CREDIT_MS after it, nothing for a late beat within one interval', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance', 'Date'] });
    const beat = new LoopBeat();
    const at = performance.now();
    beat.beat(at + STALL_BEAT_MS + STALL_BEAT_MS / 2, Date.now()); // late by half an interval: no stall
    expect(beat.credit(Date.now(), 10)).toBe(0);
    beat.beat(at + STALL_BEAT_MS * 2.5 + 500, Date.now()); // the next one 500 ms late: a stall
    expect(beat.credit(Date.now(), 10)).toBeCloseTo(5, 6); // 10 a second over 500 ms
    expect(beat.credit(Date.now() + STALL_CREDIT_MS - 1, 10)).toBeCloseTo(5, 6);
    expect(beat.credit(Date.now() + STALL_CREDIT_MS, 10)).toBe(0);
    beat.close();
    expect(vi.getTimerCount()).toBe(0);
  });
});
