// The FixtureStore contract (src/main/schedule/fixture-store.ts): every adapter must pass it.
import { describe, expect, it } from 'vitest';
import { closedAfterEach } from '../ports/opened-stores.js';
import type { Fixture, FixtureStore } from '../../../src/main/schedule/fixture-store.js';

export interface FixtureStoreHarness {
  make(): FixtureStore | Promise<FixtureStore>;
  /** A second store over the same data (another node, or the process after a restart). */
  reopen(first: FixtureStore): FixtureStore | Promise<FixtureStore>;
}

export function sampleFixture(groupCode: string, fields: Partial<Fixture> = {}): Fixture {
  const team = (name: string) => ({ name, tricode: name.slice(0, 3).toUpperCase(), url: `https://cdn.example.org/${name}.png`, seed: '', players: [`${name}1#EUW`] });
  return {
    groupCode, teams: [team('alpha'), team('bravo')], bestOf: 3, maps: [{ name: 'Ascent', pick: 0 }], toolsData: { tournamentInfo: { name: 'Cup' } },
    startsAt: null, organizationId: null, results: [], live: null, reopened: false, createdAt: 1, updatedAt: 1, ...fields,
  };
}

export function describeFixtureStoreContract(name: string, harness: FixtureStoreHarness): void {
  describe(`FixtureStore contract: ${name}`, () => {
    const track = closedAfterEach<FixtureStore>();
    const make = async () => track(await harness.make());

    it('add stores every fixture; get and list read them back as stored', async () => {
      const store = await make();
      expect(await store.get('A1')).toBeUndefined();
      expect(await store.add([sampleFixture('A1'), sampleFixture('A2', { bestOf: 5 })], 10)).toEqual({ ok: true });
      expect(await store.get('A1')).toEqual(sampleFixture('A1'));
      expect((await store.list()).map((f) => f.groupCode).sort()).toEqual(['A1', 'A2']);
      expect((await store.get('A2'))?.bestOf).toBe(5);
    });

    it('add is all or nothing: a stored code, or the bound passed, stores none of the upload', async () => {
      const store = await make();
      await store.add([sampleFixture('B1')], 3);
      expect(await store.add([sampleFixture('B2'), sampleFixture('B1')], 3)).toEqual({ ok: false, reason: 'exists', groupCode: 'B1' });
      expect(await store.add([sampleFixture('B2'), sampleFixture('B3'), sampleFixture('B4')], 3)).toEqual({ ok: false, reason: 'full', max: 3 });
      expect((await store.list()).map((f) => f.groupCode)).toEqual(['B1']);
    });

    it('update changes, leaves or deletes one fixture; unknown codes are undefined', async () => {
      const store = await make();
      await store.add([sampleFixture('C1')], 10);
      const changed = await store.update('C1', (f) => ({ ...f, results: [{ map: 'Ascent', scores: [13, 7], winner: 0 }] }));
      expect(changed?.results).toHaveLength(1);
      expect((await store.get('C1'))?.results).toEqual([{ map: 'Ascent', scores: [13, 7], winner: 0 }]);
      expect(await store.update('C1', () => undefined)).toEqual(await store.get('C1'));
      expect(await store.update('NOPE', (f) => f)).toBeUndefined();
      expect(await store.update('C1', () => null)).toBeUndefined();
      expect(await store.get('C1')).toBeUndefined();
    });

    it('concurrent updates of one fixture each apply (none lost)', async () => {
      const store = await make();
      await store.add([sampleFixture('D1')], 10);
      await Promise.all(Array.from({ length: 6 }, (_, i) => store.update('D1', (f) => ({ ...f, results: [...f.results, { map: `M${i}`, scores: [13, i], winner: 0 }] }))));
      expect((await store.get('D1'))?.results.map((r) => r.map).sort()).toEqual(['M0', 'M1', 'M2', 'M3', 'M4', 'M5']);
    });

    it('the revision moves with every write, and only then', async () => {
      const store = await make();
      const r0 = await store.revision();
      await store.add([sampleFixture('R1')], 10);
      const r1 = await store.revision();
      expect(r1).not.toBe(r0);
      await store.get('R1');
      await store.list();
      await store.update('R1', () => undefined);
      expect(await store.revision()).toBe(r1);
      await store.update('R1', (f) => ({ ...f, reopened: true }));
      const r2 = await store.revision();
      expect(r2).not.toBe(r1);
      await store.update('R1', () => null);
      expect(await store.revision()).not.toBe(r2);
    });

    it('a caller never shares the stored objects', async () => {
      const store = await make();
      const f = sampleFixture('E1');
      await store.add([f], 10);
      f.teams[0].name = 'changed';
      const read = await store.get('E1');
      read!.results.push({ map: 'x', scores: [1, 0], winner: 0 });
      expect(await store.get('E1')).toEqual(sampleFixture('E1'));
    });

    it('another store over the same data sees every change (the next node, the restarted process)', async () => {
      const store = await make();
      await store.add([sampleFixture('F1'), sampleFixture('F2')], 10);
      await store.update('F1', (f) => ({ ...f, live: { sides: [1, 0], flags: ['players'], startedAt: 5 } }));
      await store.update('F2', () => null);
      const other = track(await harness.reopen(store));
      expect(await other.get('F1')).toEqual(sampleFixture('F1', { live: { sides: [1, 0], flags: ['players'], startedAt: 5 } }));
      expect((await other.list()).map((f) => f.groupCode)).toEqual(['F1']);
    });
  });
}
