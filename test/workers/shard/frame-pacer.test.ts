// When a changed match's frame is due (workers/shard/frame-pacer.ts): at most one frame per match per
// interval of the wall clock, frames at least four fifths of an interval apart, and no drift: quiet
// batches that arrive once an interval, a little early or late, each get their frame at once.
// The pacer is driven with explicit times (its timer stopped): each `due(now)` is a batch or a cycle.
import { describe, expect, it } from 'vitest';
import { FramePacer, jitterSlackMs, nextFrameAt } from '../../../src/workers/shard/frame-pacer.js';
import type { Slot } from '../../../src/workers/shard/slot.js';

const INTERVAL = 100;
const T0 = 1_700_000_000_000; // a multiple of the interval

/** The two fields of a slot the pacer reads, as a match that changed after its last frame; `change()` changes it again. */
function changedMatch(): Slot & { change(): void } {
  const match = { stateVersion: 1 };
  return { match, sent: { event: 0, at: 0 }, change: () => { match.stateVersion++; } } as unknown as Slot & { change(): void };
}

/** Runs `due` at each time of `at`, the match changed before each; the times its frames went out. */
function framesAt(at: number[]): number[] {
  const pacer = new FramePacer(INTERVAL, () => undefined);
  pacer.stop();
  const slot = changedMatch();
  const sent: number[] = [];
  for (const now of at) {
    slot.change();
    pacer.touched(slot);
    for (const s of pacer.due(now)) {
      pacer.forget(s);
      s.sent.at = now;
      s.sent.event = s.match.stateVersion;
      sent.push(now);
    }
  }
  return sent;
}

describe('the frame pacer', () => {
  it('a frame is due in a later interval than the last one, and at least four fifths of an interval after it', () => {
    expect(jitterSlackMs(INTERVAL)).toBe(20);
    expect(nextFrameAt(T0 + 5, INTERVAL)).toBe(T0 + 100); // the next interval starts 95 ms later
    expect(nextFrameAt(T0 + 50, INTERVAL)).toBe(T0 + 130); // 80 ms later, in the next interval
    expect(nextFrameAt(T0 + 99, INTERVAL)).toBe(T0 + 179);
  });

  it('a match changed all the time (busy batches every 2 ms) gets one frame per interval, 80 ms apart at least', () => {
    const times = Array.from({ length: 1000 }, (_, i) => T0 + 3 + i * 2); // 2 s of batches
    const sent = framesAt(times);
    const intervals = sent.map((t) => Math.floor(t / INTERVAL));
    expect(new Set(intervals).size).toBe(sent.length); // never two in one interval
    for (let i = 1; i < sent.length; i++) expect(sent[i] - sent[i - 1]).toBeGreaterThanOrEqual(INTERVAL - jitterSlackMs(INTERVAL));
    expect(sent.length).toBeGreaterThanOrEqual(19); // and a frame in (nearly) every interval of the 2 s
  });

  it('quiet batches once an interval, each up to 15 ms late, get their frames at once: no drift', () => {
    let seed = 7;
    const jitter = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % 16); // 0–15 ms, the same every run
    const batches = Array.from({ length: 600 }, (_, i) => T0 + i * INTERVAL + jitter()); // a minute of intervals
    expect(framesAt(batches)).toEqual(batches);
  });

  it('a batch that comes 25 ms sooner after a late one waits for the pacer, and the next is on time again', () => {
    const pacer = new FramePacer(INTERVAL, () => undefined);
    pacer.stop();
    const slot = changedMatch();
    slot.sent.at = T0 + 30;
    pacer.touched(slot);
    expect(pacer.due(T0 + 105)).toEqual([]); // 75 ms after the last frame: not yet
    expect(pacer.due(T0 + 110)).toEqual([slot]); // 80 ms: due (the pacer's timer would fire here)
  });
});
