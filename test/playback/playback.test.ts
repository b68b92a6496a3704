// The playback engine (src/playback/playback.ts) on its own, with a transport that records what it
// is given: the recorded pace divided by the speed, instant chunks, pause and resume (no catch-up
// burst), forward seeks (fast-forward), backward seeks and loops through the transport's reset, a
// failed reset, stop, and the round index.
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { Playback, roundStarts, type PlaybackTransport } from '../../src/playback/playback.js';

interface Delivery { from: number; to: number; fast: boolean; at: number }

function recorder(reset?: () => Promise<boolean>) {
  const deliveries: Delivery[] = [];
  const delivered: number[] = [];
  const transport: PlaybackTransport = {
    deliver(from, to, fast) {
      deliveries.push({ from, to, fast, at: Date.now() });
      for (let i = from; i < to; i++) delivered.push(i);
    },
    ...(reset ? { reset } : {}),
  };
  return { transport, deliveries, delivered };
}

describe('the playback engine', () => {
  it('keeps the recorded gaps divided by the speed, and ends', async () => {
    const { transport, deliveries, delivered } = recorder();
    let ended = '';
    // 0, 1 s, 2 s at 10×: 0, 100, 200 ms.
    const p = new Playback({ times: [1000, 2000, 3000], pace: 10, transport, onEnd: (r) => { ended = r; } });
    const t0 = Date.now();
    p.start();
    await expect.poll(() => ended).toBe('end');
    expect(delivered).toEqual([0, 1, 2]);
    expect(deliveries.every((d) => !d.fast)).toBe(true);
    expect(deliveries[deliveries.length - 1].at - t0).toBeGreaterThanOrEqual(195);
    expect(p.progress()).toMatchObject({ state: 'ended', position: 3, total: 3 });
  });

  it('instant: everything in chunks, in order', async () => {
    const { transport, deliveries, delivered } = recorder();
    let ended = false;
    const p = new Playback({ times: Array.from({ length: 450 }, (_, i) => i), pace: 'instant', transport, instantChunk: 200, onEnd: () => { ended = true; } });
    p.start();
    await expect.poll(() => ended).toBe(true);
    expect(delivered).toEqual(Array.from({ length: 450 }, (_, i) => i));
    expect(deliveries.map((d) => d.to - d.from)).toEqual([200, 200, 50]);
  });

  it('pause holds, resume goes on from where it was without a catch-up burst; seek forward fast-forwards', async () => {
    // The playback's clock is faked (its timers and Date.now): the pause is shown over 600 ms of that
    // clock, not of the wall clock.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    onTestFinished(() => { vi.useRealTimers(); });
    const { transport, deliveries, delivered } = recorder();
    // One record every 100 ms at 1×.
    const p = new Playback({ times: Array.from({ length: 100 }, (_, i) => i * 100), pace: 1, transport });
    p.start();
    vi.advanceTimersByTime(250);
    expect(delivered.length).toBeGreaterThanOrEqual(3);
    p.pause();
    const held = delivered.length;
    vi.advanceTimersByTime(600); // holding: nothing may come meanwhile (6 records' worth)
    expect(delivered.length).toBe(held);
    expect(p.progress()).toMatchObject({ state: 'paused', position: held });
    p.resume();
    const resumedAt = Date.now();
    vi.advanceTimersByTime(150);
    expect(delivered.length).toBeGreaterThan(held);
    // The records missed while paused do not come at once: the recorded gaps go on from the resume.
    const next = deliveries.find((d) => d.from === held)!;
    expect(next.to - next.from).toBeLessThanOrEqual(2);
    expect(next.at - resumedAt).toBeGreaterThanOrEqual(0);
    // Seek forward while playing: the records in between at once, marked fast.
    const before = p.progress().position;
    expect(p.seek(80)).toBe(true);
    const ff = deliveries[deliveries.length - 1];
    expect(ff).toMatchObject({ from: before, to: 80, fast: true });
    expect(p.progress().position).toBe(80);
    p.stop();
    expect(p.seek(10)).toBe(false);
    expect(p.progress().state).toBe('stopped');
  });

  it('seek backward resets the transport, then fast-forwards; without reset it is refused; a failed reset ends it', async () => {
    let resets = 0;
    const { transport, delivered } = recorder(async () => { resets++; return true; });
    const p = new Playback({ times: Array.from({ length: 50 }, (_, i) => i * 1000), pace: 1, transport });
    p.start(30);
    expect(delivered).toEqual(Array.from({ length: 30 }, (_, i) => i).concat(delivered.slice(30)));
    p.pause();
    expect(p.seek(5)).toBe(true);
    expect(p.progress().state).toBe('resetting');
    await expect.poll(() => p.progress().state).toBe('paused');
    expect(resets).toBe(1);
    expect(p.progress().position).toBe(5);
    // After the reset the records before 5 were delivered again, once.
    expect(delivered.slice(-5)).toEqual([0, 1, 2, 3, 4]);

    const plain = recorder();
    const q = new Playback({ times: [0, 1, 2], pace: 1, transport: plain.transport });
    q.start(2);
    expect(q.seek(0)).toBe(false);
    q.stop();

    let ended = '';
    const failing = recorder(async () => false);
    const f = new Playback({ times: [0, 1000, 2000], pace: 1, transport: failing.transport, onEnd: (r) => { ended = r; } });
    f.start(2);
    f.seek(0);
    await expect.poll(() => ended).toBe('reset_failed');
    expect(f.progress().state).toBe('stopped');
  });

  it('loops from loopFrom through the transport\'s reset', async () => {
    let resets = 0;
    const { transport, delivered } = recorder(async () => { resets++; return true; });
    const p = new Playback({ times: [0, 10, 20, 30], pace: 10, loop: true, loopFrom: 2, transport });
    p.start(2);
    await expect.poll(() => p.progress().loops).toBeGreaterThanOrEqual(2);
    p.stop();
    expect(resets).toBeGreaterThanOrEqual(2);
    // Each loop: 0 and 1 fast-forwarded, then 2 and 3 played.
    expect(delivered.slice(0, 8)).toEqual([0, 1, 2, 3, 0, 1, 2, 3]);
  });

  it('indexes each round by its first round_info', () => {
    const records = [
      { type: 'map', data: 'Port' },
      { type: 'round_info', data: { roundNumber: 1, roundPhase: 'game_start' } },
      { type: 'round_info', data: { roundNumber: 1, roundPhase: 'shopping' } },
      { type: 'scoreboard', data: {} },
      { type: 'round_info', data: { roundNumber: 2, roundPhase: 'shopping' } },
      { type: 'round_info', data: { roundNumber: 'x' } },
    ];
    expect([...roundStarts(records)]).toEqual([[1, 1], [2, 4]]);
  });
});
