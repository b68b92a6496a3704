// ExpiringMap (src/main/base/expiring-map.ts): the one expiry mechanism of the memory
// stores. Entries expire a fixed TTL after their last write, never later on read; every expiry goes
// through onExpire (the preview store's byte count relies on it); one timer for the head, or a
// periodic sweep.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExpiringMap } from '../../../src/main/base/expiring-map.js';

describe('ExpiringMap', () => {
  afterEach(() => { vi.useRealTimers(); });

  const clocked = (options: { sweep: 'head' | number; ttlMs?: number }) => {
    let t = 0;
    const expired: Array<[string, number]> = [];
    const map = new ExpiringMap<number>({ ttlMs: options.ttlMs ?? 100, now: () => t, sweep: options.sweep, onExpire: (k, v) => expired.push([k, v]) });
    return { map, expired, at: (ms: number) => { t = ms; } };
  };

  it('serves an entry until TTL after its last write, then never again; expiry on read goes through onExpire', () => {
    const { map, expired, at } = clocked({ sweep: 3_600_000 });
    map.set('a', 1);
    at(40);
    map.set('b', 2); // expires at 140
    at(60);
    map.set('a', 3); // a fresh TTL: a now expires at 160
    at(139);
    expect([map.get('a'), map.get('b')]).toEqual([3, 2]);
    at(140);
    expect([map.get('a'), map.get('b')]).toEqual([3, undefined]);
    expect(expired).toEqual([['b', 2]]);
    at(160);
    expect(map.get('a')).toBeUndefined();
    expect(expired).toEqual([['b', 2], ['a', 3]]);
    expect(map.size).toBe(0);
    map.close();
  });

  it('sweep removes exactly the expired entries, oldest first, and reports each once', () => {
    const { map, expired, at } = clocked({ sweep: 3_600_000 });
    map.set('a', 1);
    at(10);
    map.set('b', 2);
    at(20);
    map.set('c', 3);
    at(115);
    expect(map.sweep()).toBe(2);
    expect(expired).toEqual([['a', 1], ['b', 2]]);
    expect(map.size).toBe(1);
    expect(map.sweep()).toBe(0);
    map.close();
  });

  it("'head' mode: one timer, armed for the oldest entry, sweeps on time", () => {
    vi.useFakeTimers();
    let t = 0;
    const expired: string[] = [];
    const map = new ExpiringMap<number>({ ttlMs: 100, now: () => t, sweep: 'head', onExpire: (k) => expired.push(k) });
    map.set('a', 1);
    t = 50;
    map.set('b', 2);
    expect(vi.getTimerCount()).toBe(1);
    t = 100;
    vi.advanceTimersByTime(100);
    expect(expired).toEqual(['a']);
    expect(vi.getTimerCount()).toBe(1); // re-armed for b
    t = 150;
    vi.advanceTimersByTime(50);
    expect(expired).toEqual(['a', 'b']);
    expect(vi.getTimerCount()).toBe(0);
    map.close();
  });

  it('periodic mode sweeps every interval; close stops the timer and later sets arm none', () => {
    vi.useFakeTimers();
    let t = 0;
    const expired: string[] = [];
    const map = new ExpiringMap<number>({ ttlMs: 100, now: () => t, sweep: 1000, onExpire: (k) => expired.push(k) });
    map.set('a', 1);
    t = 1000;
    vi.advanceTimersByTime(1000);
    expect(expired).toEqual(['a']);
    map.close();
    expect(vi.getTimerCount()).toBe(0);
    const head = new ExpiringMap<number>({ ttlMs: 100, now: () => t, sweep: 'head' });
    head.close();
    head.set('x', 1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('has no delete: entries leave only by expiring (through onExpire)', () => {
    const { map } = clocked({ sweep: 3_600_000 });
    expect((map as unknown as { delete?: unknown }).delete).toBeUndefined();
    map.close();
  });
});
