// The OutputDelayStore contract (src/main/output-delay/output-delay-store.ts): every adapter must pass it.
import { describe, expect, it } from 'vitest';
import { closedAfterEach } from '../ports/opened-stores.js';
import type { OutputDelayStore } from '../../../src/main/output-delay/output-delay-store.js';

export interface OutputDelayStoreHarness {
  make(): OutputDelayStore | Promise<OutputDelayStore>;
  /** A second store over the same data (another node, or the process after a restart). */
  reopen(first: OutputDelayStore): OutputDelayStore | Promise<OutputDelayStore>;
}

export function describeOutputDelayStoreContract(name: string, harness: OutputDelayStoreHarness): void {
  describe(`OutputDelayStore contract: ${name}`, () => {
    const track = closedAfterEach<OutputDelayStore>();
    const make = async () => track(await harness.make());

    it('set stores a code\'s delay, 0 removes it, all reads them back', async () => {
      const store = await make();
      expect(await store.all()).toEqual({});
      expect(await store.set('D1', 5, 10)).toBe(true);
      expect(await store.set('D2', 600, 10)).toBe(true);
      expect(await store.set('D1', 7, 10)).toBe(true);
      expect(await store.all()).toEqual({ D1: 7, D2: 600 });
      expect(await store.set('D2', 0, 10)).toBe(true);
      expect(await store.set('NONE', 0, 10)).toBe(true);
      expect(await store.all()).toEqual({ D1: 7 });
    });

    it('refuses a new code past the bound, but changes and removals of stored ones go through', async () => {
      const store = await make();
      expect(await store.set('B1', 1, 2)).toBe(true);
      expect(await store.set('B2', 2, 2)).toBe(true);
      expect(await store.set('B3', 3, 2)).toBe(false);
      expect(await store.set('B2', 4, 2)).toBe(true);
      expect(await store.set('B1', 0, 2)).toBe(true);
      expect(await store.set('B3', 3, 2)).toBe(true);
      expect(await store.all()).toEqual({ B2: 4, B3: 3 });
    });

    it('moves its revision with every write, and another store over the same data reads what was written', async () => {
      const store = await make();
      const r0 = await store.revision();
      await store.set('R1', 9, 10);
      const r1 = await store.revision();
      expect(r1).not.toBe(r0);
      expect(await store.revision()).toBe(r1);
      const other = track(await harness.reopen(store));
      expect(await other.all()).toEqual({ R1: 9 });
      const before = await other.revision();
      await other.set('R1', 0, 10);
      expect(await other.revision()).not.toBe(before);
      expect(await other.all()).toEqual({});
    });
  });
}
