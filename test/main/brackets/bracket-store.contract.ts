// The BracketStore contract (src/main/brackets/bracket-store.ts): every adapter must pass it.
import { describe, expect, it } from 'vitest';
import { closedAfterEach } from '../ports/opened-stores.js';
import { emptyReport, type BracketLink, type BracketStore, type LinkedSet } from '../../../src/main/brackets/bracket-store.js';

export interface BracketStoreHarness {
  make(): BracketStore | Promise<BracketStore>;
  /** A second store over the same data (another node, or the process after a restart). */
  reopen(first: BracketStore): BracketStore | Promise<BracketStore>;
  /** Whether two stores over the same data are two nodes (a shared adapter: only one leads). */
  shared: boolean;
}

export const sampleLink = (id: string): BracketLink => ({
  id, platform: 'startgg', input: 'tournament/t/event/e', target: { kind: 'event', ref: 'tournament/t/event/e' }, token: `secret-${id}`,
  mode: 'auto', name: '', stages: [], createdAt: 1,
});
export const sampleSet = (groupCode: string, linkId: string): LinkedSet => ({
  groupCode, linkId, setId: '9001', entrantIds: ['1', '2'], round: 'Final', stream: '', station: '', flags: [], change: '', report: emptyReport(),
});

export function describeBracketStoreContract(name: string, harness: BracketStoreHarness): void {
  describe(`BracketStore contract: ${name}`, () => {
    const track = closedAfterEach<BracketStore>();
    const make = async () => track(await harness.make());

    it('starts empty; update stores the document, read gives it back, another store over the same data sees it', async () => {
      const store = await make();
      expect(await store.read()).toMatchObject({ links: [], sets: {} });
      const doc = await store.update((d) => ({ ...d, links: [sampleLink('lnk_1')], sets: { ABC123: sampleSet('ABC123', 'lnk_1') } }));
      expect(doc.links).toEqual([sampleLink('lnk_1')]);
      expect(await store.read()).toMatchObject({ links: [sampleLink('lnk_1')], sets: { ABC123: sampleSet('ABC123', 'lnk_1') } });
      const other = track(await harness.reopen(store));
      expect((await other.read()).links).toEqual([sampleLink('lnk_1')]);
    });

    it('update with undefined changes nothing; the change gets a copy', async () => {
      const store = await make();
      await store.update((d) => ({ ...d, links: [sampleLink('lnk_1')] }));
      const kept = await store.update((d) => { d.links.push(sampleLink('lnk_2')); return undefined; });
      expect(kept.links.map((l) => l.id)).toEqual(['lnk_1']);
      expect((await store.read()).links.map((l) => l.id)).toEqual(['lnk_1']);
    });

    it('concurrent updates (shared: here and through another store) all apply', async () => {
      const store = await make();
      const other = harness.shared ? track(await harness.reopen(store)) : store; // a file is one process's
      await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? store : other).update((d) => ({ ...d, links: [...d.links, sampleLink(`lnk_${i}`)] }))));
      expect((await store.read()).links.map((l) => l.id).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `lnk_${i}`).sort());
    });

    it('the lead: one holder at a time over shared data, renewed by it, taken by another once it expired', async () => {
      const store = await make();
      expect(await store.lead('node-a', 300)).toBe(true);
      expect(await store.lead('node-a', 300)).toBe(true);
      if (!harness.shared) return;
      const other = track(await harness.reopen(store));
      expect(await other.lead('node-b', 300)).toBe(false);
      await expect.poll(() => other.lead('node-b', 300), { timeout: 5_000, interval: 100 }).toBe(true);
      expect(await store.lead('node-a', 300)).toBe(false);
    });
  });
}
