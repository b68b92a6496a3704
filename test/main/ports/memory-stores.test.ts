// The memory adapters beyond their ports' contracts (test/main/<concern>/<port>.contract.ts, run by
// test/main/ports/ports-memory.test.ts): expired previews and team info leave memory without any read, by
// the preview store's head timer and the team-info cleanup (TEAM_INFO_CLEANUP_MS); snapshots that
// stopped changing are kept packed and read back intact. What
// test/main/rest/rest-lifecycle.test.ts checked through the service's internals before; the clock is
// vitest's fake one here.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryPreviewStore } from '../../../src/main/previews/adapters/memory/preview-store.js';
import { MemoryTeamInfoStore } from '../../../src/main/previews/adapters/memory/team-info-store.js';
import { MemorySnapshotStore } from '../../../src/main/matches/adapters/memory/snapshot-store.js';
import type { MatchSnapshot } from '../../../src/main/matches/snapshot-store.js';

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

describe('memory snapshot store packs the snapshots of matches that stopped changing', () => {
  const snap = (groupCode: string, epoch: number, text: string): MatchSnapshot => ({
    groupCode, epoch, text, savedAt: 1000 + epoch,
    match: { groupCode, secretDigest: 'cd'.repeat(32), matchId: 'game', organizationId: 'org', isSupporter: true, keyId: 'org:org', createdAt: 5, teams: { leftTeam: { name: 'L' }, rightTeam: { name: 'R' } } },
  });
  // A snapshot-like text with non-ASCII names (UTF-8 through deflate and back).
  const text = (n: number) => JSON.stringify({ v: 1, state: { players: Array.from({ length: 10 }, (_, i) => ({ name: `Spieler ${i} — ☃ ${n}`, kills: i * n })) } });

  it('reads a packed snapshot back as it was put; puts, fencing and deletes work on packed ones', async () => {
    vi.useRealTimers();
    const store = new MemorySnapshotStore({ packAfterMs: 30 });
    closers.push(store);
    const a = snap('PACK01', 2, text(1));
    store.keep(a);
    store.keep(snap('PACK02', 1, text(2)));
    expect(store.isPacked('PACK01')).toBe(false);
    expect(store.latest('PACK01')).toEqual(a); // plain: its text from the match's buffer
    await expect.poll(() => store.isPacked('PACK01'), { timeout: 10_000 }).toBe(true); // packed: rebuilt on read
    expect(store.latest('PACK01')).toEqual(a);
    expect((await store.loadAll()).map((s) => s.text).sort()).toEqual([text(1), text(2)]);
    expect(store.keep(snap('PACK01', 1, 'stale'))).toBe(false); // fenced by the packed one's epoch
    expect(store.drop('PACK01', 1)).toBe(false);
    expect(store.latest('PACK01')?.text).toBe(text(1));
    const b = snap('PACK01', 2, text(3));
    expect(store.keep(b)).toBe(true); // a put after packing is plain again
    expect(store.isPacked('PACK01')).toBe(false);
    expect(store.latest('PACK01')).toEqual(b);
    expect(store.keep(snap('PACK01', 2, text(44) + ' and a longer tail'.repeat(200)))).toBe(true); // outgrows the match's buffer
    expect(store.latest('PACK01')?.text).toBe(text(44) + ' and a longer tail'.repeat(200));
    expect(store.keep(b)).toBe(true); // shorter again: the buffer's first bytes only
    expect(store.latest('PACK01')).toEqual(b);
    expect(store.drop('PACK02', 1)).toBe(true);
    expect(store.latest('PACK02')).toBeUndefined();
    await expect.poll(() => store.isPacked('PACK01'), { timeout: 10_000 }).toBe(true);
    expect(store.latest('PACK01')).toEqual(b);
  });
});
