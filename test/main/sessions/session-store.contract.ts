// The SessionStore contract (src/main/sessions/session-store.ts): every adapter must pass it. Time is
// passed to the store explicitly (`now`), so no clock is needed.
import { describe, expect, it } from 'vitest';
import { closedAfterEach } from '../ports/opened-stores.js';
import type { NewSession, SessionStore } from '../../../src/main/sessions/session-store.js';

export interface SessionStoreHarness {
  /** A fresh, empty store with this resumption window. */
  make(windowMs: number): SessionStore | Promise<SessionStore>;
}

const WINDOW = 10_000;
const T0 = 1_000_000;
const observer = (id: string, groupCode: string, socketId = `sock-${id}`): NewSession => ({ id, role: 'observer', groupCode, obsName: 'obs', matchId: '', playerId: '', socketId });
const auxiliary = (id: string, matchId: string, playerId: string, socketId = `sock-${id}`): NewSession => ({ id, role: 'auxiliary', groupCode: '', obsName: '', matchId, playerId, socketId });

export function describeSessionStoreContract(name: string, harness: SessionStoreHarness): void {
  describe(`SessionStore contract: ${name}`, () => {
    const track = closedAfterEach<SessionStore>();
    const make = async () => track(await harness.make(WINDOW));

    it('a socket presenting a session id takes the session over under its own id; the old id is gone', async () => {
      const store = await make();
      store.put(observer('pid-1', 'G1', 'sock-a'));
      expect(store.size()).toBe(1);
      const taken = await store.takeOver('pid-1', 'pid-2', 'sock-b', T0);
      expect(taken).toBeDefined();
      expect(taken!.previousSocketId).toBe('sock-a');
      expect(taken!.disconnectedAt).toBeNull();
      expect(taken!.session).toMatchObject({ id: 'pid-2', role: 'observer', groupCode: 'G1', obsName: 'obs', socketId: 'sock-b', disconnectedAt: null });
      expect(await store.takeOver('pid-1', 'pid-3', 'sock-c', T0)).toBeUndefined();
      expect(store.size()).toBe(1);
    });

    it('an observer session keeps its seat through a detach and takeovers; the group\'s seat has none', async () => {
      const store = await make();
      store.put({ ...observer('pid-s', 'G1', 'sock-a'), seat: 'standby' });
      store.put(observer('pid-g', 'G1', 'sock-g'));
      expect(store.detach('pid-s', 'sock-a', T0)).toBe(true);
      const taken = await store.takeOver('pid-s', 'pid-s2', 'sock-b', T0 + 1);
      expect(taken?.session.seat).toBe('standby');
      expect((await store.takeOver('pid-s2', 'pid-s3', 'sock-c', T0 + 2))?.session.seat).toBe('standby');
      expect((await store.takeOver('pid-g', 'pid-g2', 'sock-h', T0 + 2))?.session.seat).toBeUndefined();
    });

    it('ids that cannot be a session id find nothing', async () => {
      const store = await make();
      store.put(observer('pid-1', 'G1'));
      for (const bad of [undefined, null, 42, '', 'x'.repeat(1000), { id: 'pid-1' }]) expect(await store.takeOver(bad, 'n', 's', T0)).toBeUndefined();
      expect(await store.takeOver('unknown', 'n', 's', T0)).toBeUndefined();
    });

    it('a detached session is resumable within the window, not after it; only its holder detaches it', async () => {
      const store = await make();
      store.put(observer('pid-1', 'G1', 'sock-a'));
      expect(store.detach('pid-1', 'sock-other', T0)).toBe(false);
      expect(store.detach('pid-1', 'sock-a', T0)).toBe(true);
      expect(store.detach('pid-1', 'sock-a', T0)).toBe(false);
      const taken = await store.takeOver('pid-1', 'pid-2', 'sock-b', T0 + WINDOW - 1);
      expect(taken?.previousSocketId).toBeNull();
      expect(taken?.disconnectedAt).toBe(T0);
      expect(store.detach('pid-2', 'sock-b', T0 + WINDOW)).toBe(true);
      expect(await store.takeOver('pid-2', 'pid-3', 'sock-c', T0 + 2 * WINDOW + 1)).toBeUndefined();
    });

    it('sweep forgets the sessions whose window has passed, and only those', async () => {
      const store = await make();
      store.put(observer('pid-1', 'G1', 'sock-a'));
      store.put(observer('pid-2', 'G1', 'sock-b'));
      store.put(observer('pid-3', 'G1', 'sock-c'));
      store.detach('pid-1', 'sock-a', T0);
      store.detach('pid-2', 'sock-b', T0 + WINDOW);
      store.sweep(T0 + WINDOW + 1);
      expect(store.size()).toBe(2);
      expect(await store.takeOver('pid-2', 'pid-2', 'sock-x', T0 + WINDOW + 1)).toBeDefined();
      expect(await store.takeOver('pid-3', 'pid-3', 'sock-y', T0 + WINDOW + 1)).toBeDefined();
    });

    it('of two sockets presenting one id at once, exactly one takes the session over', async () => {
      const store = await make();
      store.put(observer('pid-1', 'G1', 'sock-a'));
      const results = await Promise.all([store.takeOver('pid-1', 'pid-b', 'sock-b', T0), store.takeOver('pid-1', 'pid-c', 'sock-c', T0)]);
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
      expect(store.size()).toBe(1);
    });

    it('one live auxiliary session per player and match id, atomically; a detached one does not count', async () => {
      const store = await make();
      const results = await Promise.all([store.putAuxiliary(auxiliary('a-1', 'M1', 'P1')), store.putAuxiliary(auxiliary('a-2', 'M1', 'P1'))]);
      expect([...results].sort()).toEqual([false, true]);
      expect(await store.putAuxiliary(auxiliary('a-3', 'M1', 'P2'))).toBe(true);
      expect(await store.putAuxiliary(auxiliary('a-4', 'M2', 'P1'))).toBe(true);
      const winner = results[0] ? 'a-1' : 'a-2';
      expect(store.detach(winner, `sock-${winner}`, T0)).toBe(true);
      expect(await store.putAuxiliary(auxiliary('a-5', 'M1', 'P1'))).toBe(true);
      expect(store.size()).toBe(4);
    });

    it('ending a group ends its observer sessions (and, when asked, the auxiliary sessions of a match id), and nothing else', async () => {
      const store = await make();
      store.put(observer('o-1', 'G1'));
      store.put(observer('o-2', 'G1'));
      store.put(observer('o-3', 'G2'));
      await store.putAuxiliary(auxiliary('x-1', 'M1', 'P1'));
      await store.putAuxiliary(auxiliary('x-2', 'M2', 'P1'));
      store.detach('o-2', 'sock-o-2', T0);
      const ended = await store.end({ observersOf: 'G1' });
      expect(ended.map((s) => s.id).sort()).toEqual(['o-1', 'o-2']);
      expect(await store.takeOver('o-2', 'o-2b', 'sock-z', T0)).toBeUndefined();
      expect(store.size()).toBe(3);
      const both = await store.end({ observersOf: 'G2', auxiliariesOf: 'M1' });
      expect(both.map((s) => s.id).sort()).toEqual(['o-3', 'x-1']);
      expect(await store.end({ auxiliariesOf: 'M9' })).toEqual([]);
      expect(store.size()).toBe(1);
    });

    it('flush and close resolve and return', async () => {
      const store = await make();
      store.put(observer('pid-1', 'G1'));
      await store.flush(T0);
      store.close();
    });
  });
}
