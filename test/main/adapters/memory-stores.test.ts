// The memory adapters beyond their ports' contracts (test/main/ports/, run by
// test/main/adapters/ports-memory.test.ts): expired previews and team info leave memory without any read, by
// the preview store's head timer and the team-info cleanup (TEAM_INFO_CLEANUP_MS). What
// test/main/rest/rest-lifecycle.test.ts checked through the service's internals before; the clock is
// vitest's fake one here.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryPreviewStore } from '../../../src/main/adapters/memory/preview-store.js';
import { MemoryTeamInfoStore } from '../../../src/main/adapters/memory/team-info-store.js';

const TTL = 1000;
const closers: Array<{ close(): void }> = [];
beforeEach(() => { vi.useFakeTimers({ now: 5_000_000 }); });
afterEach(() => {
  for (const c of closers.splice(0)) c.close();
  vi.useRealTimers();
});

describe('memory stores free expired entries without reads', () => {
  it('previews: the head timer removes every expired preview and gives its bytes back', async () => {
    const store = new MemoryPreviewStore({ ttlMs: TTL, maxEntries: 3, maxBytes: 1_000_000, now: () => Date.now() });
    closers.push(store);
    for (const code of ['MAX001', 'MAX002', 'MAX003']) expect(await store.put(code, `{"code":"${code}"}`)).toBe('stored');
    vi.advanceTimersByTime(300);
    expect(await store.put('MAX002', '{"code":"MAX002","replaced":true}')).toBe('stored'); // a later life
    expect(store.held).toBe(3);
    expect(store.storedBytes).toBeGreaterThan(40);
    vi.advanceTimersByTime(TTL - 300);
    expect(store.held).toBe(1); // MAX001 and MAX003 went on time, unread
    vi.advanceTimersByTime(300);
    expect(store.held).toBe(0);
    expect(store.storedBytes).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('team info: the periodic cleanup removes expired entries', async () => {
    const store = new MemoryTeamInfoStore({ ttlMs: TTL, cleanupMs: 200, now: () => Date.now() });
    closers.push(store);
    await store.set('A', { leftTeam: { name: 'L' }, rightTeam: { name: 'R' } });
    await store.set('B', { leftTeam: { name: 'L' }, rightTeam: { name: 'R' } });
    expect(store.held).toBe(2);
    vi.advanceTimersByTime(TTL - 200);
    expect(store.held).toBe(2);
    vi.advanceTimersByTime(200);
    expect(store.held).toBe(0);
  });
});
