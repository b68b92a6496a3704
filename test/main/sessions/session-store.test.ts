// MemorySessionStore beyond the port's contract (test/main/sessions/session-store.contract.ts): what
// STATE_DIR keeps of it (ids as digests only) and how a restored session is found and taken over.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../../src/main/sessions/adapters/memory/session-store.js';

const WINDOW = 10_000;
const sha = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');

describe('MemorySessionStore', () => {
  it('persists ids as digests; held sessions count as gone at the time given', () => {
    const store = new MemorySessionStore(WINDOW);
    store.put({ id: 'pid-a', role: 'observer', groupCode: 'G', obsName: 'o', matchId: '', playerId: '', socketId: 's1' });
    store.put({ id: 'pid-b', role: 'auxiliary', groupCode: '', obsName: '', matchId: 'M', playerId: 'P', socketId: 's2' });
    store.detach('pid-b', 's2', 500);
    const out = store.persisted(900);
    expect(out).toEqual([
      { pidHash: sha('pid-a'), role: 'observer', groupCode: 'G', obsName: 'o', matchId: '', playerId: '', disconnectedAt: 900 },
      { pidHash: sha('pid-b'), role: 'auxiliary', groupCode: '', obsName: '', matchId: 'M', playerId: 'P', disconnectedAt: 500 },
    ]);
    expect(JSON.stringify(out)).not.toContain('pid-');
  });

  it('restored sessions are taken over by the id whose digest they carry, once, within the window', () => {
    const store = new MemorySessionStore(WINDOW);
    const n = store.restore([
      { pidHash: sha('pid-a'), role: 'observer', groupCode: 'G', obsName: 'o', matchId: '', playerId: '', disconnectedAt: 1000 },
      { pidHash: sha('pid-old'), role: 'observer', groupCode: 'G', obsName: 'o', matchId: '', playerId: '', disconnectedAt: 1000 - WINDOW - 1 },
      { pidHash: 'x', role: 'spectator' as never, groupCode: '', obsName: '', matchId: '', playerId: '', disconnectedAt: 1000 },
    ], 1000);
    expect(n).toBe(1);
    expect(store.size()).toBe(1);
    expect(store.takeOver(sha('pid-a'), 'n', 's', 1000)).toBeUndefined(); // the digest itself is not the id
    const taken = store.takeOver('pid-a', 'pid-new', 's9', 2000);
    expect(taken?.session).toMatchObject({ id: 'pid-new', groupCode: 'G', socketId: 's9', disconnectedAt: null });
    expect(taken?.disconnectedAt).toBe(1000);
    expect(store.takeOver('pid-a', 'again', 's8', 2000)).toBeUndefined();
    expect(store.persisted(3000).map((p) => p.pidHash)).toEqual([sha('pid-new')]);
  });

  it('a restored session past its window is not taken over; sweep forgets restored ones too', () => {
    const store = new MemorySessionStore(WINDOW);
    store.restore([
      { pidHash: sha('p1'), role: 'observer', groupCode: 'G', obsName: '', matchId: '', playerId: '', disconnectedAt: 1000 },
      { pidHash: sha('p2'), role: 'observer', groupCode: 'G', obsName: '', matchId: '', playerId: '', disconnectedAt: 5000 },
    ], 1000);
    expect(store.takeOver('p1', 'n', 's', 1000 + WINDOW + 1)).toBeUndefined();
    store.sweep(5000 + WINDOW + 1);
    expect(store.size()).toBe(0);
  });

  it('every change raises the version (STATE_DIR writes the table when it moved)', () => {
    const store = new MemorySessionStore(WINDOW);
    const v0 = store.version;
    store.put({ id: 'p', role: 'observer', groupCode: 'G', obsName: '', matchId: '', playerId: '', socketId: 's' });
    const v1 = store.version;
    store.detach('p', 's', 1);
    const v2 = store.version;
    store.takeOver('p', 'q', 't', 2);
    const v3 = store.version;
    store.endNow({ observersOf: 'G' });
    expect([v0 < v1, v1 < v2, v2 < v3, v3 < store.version]).toEqual([true, true, true, true]);
  });

  it('ends exactly the sessions of a group code or match id, wherever they are kept (live, restored, taken over), and forgets those swept', () => {
    const store = new MemorySessionStore(WINDOW);
    const obs = (id: string, groupCode: string) => store.put({ id, role: 'observer', groupCode, obsName: '', matchId: '', playerId: '', socketId: `s-${id}` });
    const aux = (id: string, matchId: string, playerId: string) => store.putAuxiliary({ id, role: 'auxiliary', groupCode: '', obsName: '', matchId, playerId, socketId: `s-${id}` });
    for (let g = 0; g < 50; g++) { obs(`o${g}a`, `G${g}`); obs(`o${g}b`, `G${g}`); }
    expect(aux('x1', 'M1', 'P1')).toBe(true);
    expect(aux('x2', 'M1', 'P1')).toBe(false); // that player's session is live
    expect(aux('x3', 'M1', 'P2')).toBe(true);
    expect(aux('x4', 'M2', 'P1')).toBe(true);
    store.detach('x1', 's-x1', 100);
    expect(aux('x5', 'M1', 'P1')).toBe(true); // its socket went: another may log on
    store.restore([
      { pidHash: sha('r1'), role: 'observer', groupCode: 'G7', obsName: '', matchId: '', playerId: '', disconnectedAt: 1000 },
      { pidHash: sha('r2'), role: 'observer', groupCode: 'G8', obsName: '', matchId: '', playerId: '', disconnectedAt: 1000 },
      { pidHash: sha('r3'), role: 'auxiliary', groupCode: '', obsName: '', matchId: 'M1', playerId: 'P9', disconnectedAt: 1000 },
    ], 1000);
    store.takeOver('r2', 'r2-new', 's-r2', 2000); // now kept by its new id
    store.takeOver('o9a', 'o9a-new', 's-o9a-2', 2000); // a live one's new id
    obs('o3a', 'G3'); // the same id put again: one session, not two
    const ids = (list: { id: string }[]) => list.map((s) => s.id).sort();
    expect(ids(store.endNow({ observersOf: 'G3' }))).toEqual(['o3a', 'o3b']);
    expect(ids(store.endNow({ observersOf: 'G7' }))).toEqual(['', 'o7a', 'o7b']); // '' : the restored one, not taken over
    expect(ids(store.endNow({ observersOf: 'G8' }))).toEqual(['o8a', 'o8b', 'r2-new']);
    expect(ids(store.endNow({ observersOf: 'G9' }))).toEqual(['o9a-new', 'o9b']);
    expect(ids(store.endNow({ auxiliariesOf: 'M1' }))).toEqual(['', 'x1', 'x3', 'x5']);
    expect(store.endNow({ observersOf: 'G3', auxiliariesOf: 'M1' })).toEqual([]);
    expect(store.size()).toBe(2 * 50 - 8 + 1); // the other observers and x4
    expect(store.takeOver('r1', 'late', 's', 2000)).toBeUndefined(); // ended with G7
    // Swept sessions are gone from every lookup.
    store.detach('o20a', 's-o20a', 3000);
    store.sweep(3000 + WINDOW + 1);
    expect(ids(store.endNow({ observersOf: 'G20' }))).toEqual(['o20b']);
    expect(aux('x6', 'M2', 'P1')).toBe(false); // x4 is still live
  });
});
