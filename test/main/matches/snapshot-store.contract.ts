// The SnapshotStore contract (src/main/matches/snapshot-store.ts): every adapter must pass it,
// durable ones also across a reopening (`reopen`).
import { describe, expect, it } from 'vitest';
import type { MatchSnapshot, SnapshotStore } from '../../../src/main/matches/snapshot-store.js';

export interface SnapshotStoreHarness {
  make(): SnapshotStore | Promise<SnapshotStore>;
  /** Durable adapters: a new instance over the same storage (after the previous one flushed). */
  reopen?(): SnapshotStore | Promise<SnapshotStore>;
}

const snap = (groupCode: string, epoch: number, text = `{"epoch":${epoch}}`): MatchSnapshot => ({
  groupCode, epoch, text, savedAt: 1000 + epoch,
  match: { groupCode, secretDigest: 'cd'.repeat(32), matchId: 'game', organizationId: 'org', isSupporter: true, keyId: 'org:org', createdAt: 5, teams: { leftTeam: { name: 'L' }, rightTeam: { name: 'R' } } },
});

export function describeSnapshotStoreContract(name: string, harness: SnapshotStoreHarness): void {
  describe(`SnapshotStore contract: ${name}`, () => {
    it('keeps the latest snapshot of each match', async () => {
      const store = await harness.make();
      expect(store.latest('A')).toBeUndefined();
      expect(await store.put(snap('A', 1, 'one'))).toBe(true);
      expect(await store.put(snap('A', 1, 'two'))).toBe(true);
      expect(await store.put(snap('B', 1))).toBe(true);
      expect(store.latest('A')?.text).toBe('two');
      expect((await store.loadAll()).map((s) => s.groupCode).sort()).toEqual(['A', 'B']);
    });

    it('is fenced: a lower epoch never replaces nor deletes a higher one', async () => {
      const store = await harness.make();
      await store.put(snap('F', 5, 'owner-5'));
      expect(await store.put(snap('F', 4, 'stale'))).toBe(false);
      expect(store.latest('F')?.text).toBe('owner-5');
      await store.delete('F', 4);
      expect(store.latest('F')?.text).toBe('owner-5');
      expect(await store.put(snap('F', 6, 'owner-6'))).toBe(true);
      expect(store.latest('F')?.text).toBe('owner-6');
      await store.delete('F', 6);
      expect(store.latest('F')).toBeUndefined();
      expect((await store.loadAll()).map((s) => s.groupCode)).not.toContain('F');
    });

    it('flush resolves once every write is stored', async () => {
      const store = await harness.make();
      for (let i = 1; i <= 20; i++) void store.put(snap('W', i, `w${i}`));
      await store.flush();
      expect(store.latest('W')?.text).toBe('w20');
    });

    if (harness.reopen) {
      it('durable: what was stored is there for the next process, with its record and epoch; deletions too', async () => {
        const store = await harness.make();
        expect(store.durable).toBe(true);
        await store.put(snap('D1', 3, 'kept'));
        await store.put(snap('D2', 1));
        await store.delete('D2', 1);
        await store.flush();
        const next = await harness.reopen!();
        const all = await next.loadAll();
        expect(all.map((s) => s.groupCode)).toEqual(['D1']);
        expect(all[0]).toEqual(snap('D1', 3, 'kept'));
        expect(next.latest('D1')?.text).toBe('kept');
      });
    }
  });
}
