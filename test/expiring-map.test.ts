// ExpiringMap (the memory adapters' expiry, src/main/stores/expiring-map.ts): entries expire a
// fixed TTL after their last write; reads check expiry themselves; one head timer (or a periodic
// sweep) removes expired entries without reads; onExpire sees every expired entry once. The clock
// is injected (Date.now under vitest's fake timers), so nothing here waits for real.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ExpiringMap } from '../src/main/stores/expiring-map.js';

const TTL = 1000;
let maps: ExpiringMap<string>[] = [];
const expired: [string, string][] = [];

function map(sweep: 'head' | number = 'head'): ExpiringMap<string> {
  const m = new ExpiringMap<string>({ ttlMs: TTL, now: () => Date.now(), sweep, onExpire: (k, v) => expired.push([k, v]) });
  maps.push(m);
  return m;
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
  expired.length = 0;
});
afterEach(() => {
  for (const m of maps) m.close();
  maps = [];
  vi.useRealTimers();
});

describe('expiry on read', () => {
  it('a value lives TTL after its write; at TTL it is gone, and onExpire saw it once', () => {
    const m = map(60_000); // a sweep far away: only reads expire here
    m.set('a', 'A');
    vi.setSystemTime(Date.now() + TTL - 1);
    expect(m.get('a')).toBe('A');
    vi.setSystemTime(Date.now() + 1);
    expect(m.get('a')).toBeUndefined();
    expect(m.get('a')).toBeUndefined();
    expect(expired).toEqual([['a', 'A']]);
    expect(m.size).toBe(0);
  });

  it('reads do not extend a life; a write starts a new one', () => {
    const m = map(60_000);
    m.set('a', 'A1');
    for (let i = 0; i < 9; i++) {
      vi.setSystemTime(Date.now() + 100);
      expect(m.get('a')).toBe('A1');
    }
    m.set('a', 'A2'); // at +900
    vi.setSystemTime(Date.now() + 500); // +1400: the first life would be over
    expect(m.get('a')).toBe('A2');
    vi.setSystemTime(Date.now() + 500); // +1900: the second one is
    expect(m.get('a')).toBeUndefined();
    expect(expired).toEqual([['a', 'A2']]);
  });

  it('delete removes without onExpire; unknown keys are undefined', () => {
    const m = map(60_000);
    m.set('a', 'A');
    expect(m.delete('a')).toBe('A');
    expect(m.delete('a')).toBeUndefined();
    expect(m.get('a')).toBeUndefined();
    expect(m.get('never')).toBeUndefined();
    vi.setSystemTime(Date.now() + 2 * TTL);
    expect(m.sweep()).toBe(0);
    expect(expired).toEqual([]);
  });
});

describe("sweep: 'head' (one timer for the earliest expiry)", () => {
  it('removes each entry when it expires, without any read, in write order', () => {
    const m = map('head');
    m.set('a', 'A');
    vi.advanceTimersByTime(300);
    m.set('b', 'B');
    vi.advanceTimersByTime(300);
    m.set('c', 'C');
    expect(m.size).toBe(3);
    vi.advanceTimersByTime(TTL - 600 - 1); // just before a's end
    expect(m.size).toBe(3);
    vi.advanceTimersByTime(1);
    expect(expired.map(([k]) => k)).toEqual(['a']);
    vi.advanceTimersByTime(300);
    expect(expired.map(([k]) => k)).toEqual(['a', 'b']);
    vi.advanceTimersByTime(300);
    expect(expired.map(([k]) => k)).toEqual(['a', 'b', 'c']);
    expect(m.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0); // nothing left to wait for: no timer
  });

  it('a rewritten head moves to the tail: the timer fires early, finds nothing, and re-arms', () => {
    const m = map('head');
    m.set('a', 'A1');
    m.set('b', 'B');
    vi.advanceTimersByTime(500);
    m.set('a', 'A2'); // now expires at +1500, after b (+1000)
    vi.advanceTimersByTime(500);
    expect(expired).toEqual([['b', 'B']]);
    expect(m.get('a')).toBe('A2');
    vi.advanceTimersByTime(500);
    expect(expired).toEqual([['b', 'B'], ['a', 'A2']]);
    expect(m.size).toBe(0);
  });

  it('keeps at most one timer however many entries it holds', () => {
    const m = map('head');
    for (let i = 0; i < 1000; i++) {
      m.set(`k${i}`, 'v');
      vi.advanceTimersByTime(1);
    }
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(TTL);
    expect(m.size).toBe(0);
    expect(expired).toHaveLength(1000);
  });

  it('close() stops the timer: nothing is swept afterwards, reads still check expiry', () => {
    const m = map('head');
    m.set('a', 'A');
    m.close();
    expect(vi.getTimerCount()).toBe(0);
    m.set('b', 'B'); // a write after close arms nothing
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(2 * TTL);
    expect(m.size).toBe(2);
    expect(m.get('a')).toBeUndefined();
    expect(expired).toEqual([['a', 'A']]);
  });
});

describe('sweep: a number (a periodic sweep)', () => {
  it('removes what expired at each run, and only that; reads in between still check expiry', () => {
    const m = map(5000);
    m.set('a', 'A');
    vi.advanceTimersByTime(2000);
    m.set('b', 'B');
    vi.advanceTimersByTime(1000); // +3000: both expired (a at +1000, b at +3000), no sweep yet
    expect(m.size).toBe(2);
    expect(m.get('b')).toBeUndefined(); // the read drops b itself
    expect(m.size).toBe(1);
    vi.advanceTimersByTime(2000); // +5000: the sweep runs
    expect(m.size).toBe(0);
    expect(expired).toEqual([['b', 'B'], ['a', 'A']]);
    m.set('c', 'C');
    vi.advanceTimersByTime(5000); // +10000: c (written at +5000) expired at +6000
    expect(m.size).toBe(0);
    expect(expired.map(([k]) => k)).toEqual(['b', 'a', 'c']);
  });

  it('sweep() stops at the first live entry and returns how many it removed', () => {
    const m = map(60_000);
    m.set('a', 'A');
    vi.setSystemTime(Date.now() + 400);
    m.set('b', 'B');
    vi.setSystemTime(Date.now() + 400);
    m.set('c', 'C');
    vi.setSystemTime(Date.now() + 400); // +1200: a expired; b (+1400) and c (+1800) live
    expect(m.sweep()).toBe(1);
    expect(m.size).toBe(2);
    vi.setSystemTime(Date.now() + 700); // +1900
    expect(m.sweep()).toBe(2);
    expect(m.sweep()).toBe(0);
  });
});
