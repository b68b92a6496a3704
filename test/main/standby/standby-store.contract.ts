// The StandbyStore contract (src/main/standby/standby-store.ts): every adapter must pass it.
import { describe, expect, it } from 'vitest';
import { closedAfterEach } from '../ports/opened-stores.js';
import type { StandbyStore } from '../../../src/main/standby/standby-store.js';

export interface StandbyStoreHarness {
  make(): StandbyStore | Promise<StandbyStore>;
  /** A second store on the same shared state (another process, or the same directory after a restart); undefined: not shared. */
  reopen?(): StandbyStore | Promise<StandbyStore>;
}

const DIGEST = 'a'.repeat(64);

export function describeStandbyStoreContract(name: string, harness: StandbyStoreHarness): void {
  describe(`StandbyStore contract: ${name}`, () => {
    const track = closedAfterEach<StandbyStore>();
    const make = async () => track(await harness.make());

    it('nothing is admitted without an armed window, nor after it closed', async () => {
      const store = await make();
      expect(await store.get('S1')).toBeUndefined();
      expect(await store.admit('S1', DIGEST, 1000)).toBe(false);
      await store.arm('S1', 2000);
      expect(await store.admit('S1', DIGEST, 2000)).toBe(false); // closed at its end
      expect(await store.get('S1')).toEqual({ armedUntil: 2000, secretDigest: '', primary: 'group' });
    });

    it('an armed window admits exactly one of many concurrent logons, then closes', async () => {
      const store = await make();
      await store.arm('S2', 5000);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.admit('S2', String(i).repeat(64).slice(0, 64), 1000)));
      expect(results.filter(Boolean)).toHaveLength(1);
      const record = await store.get('S2');
      expect(record).toMatchObject({ armedUntil: 0, primary: 'group' });
      expect(record?.secretDigest).toBe(String(results.indexOf(true)).repeat(64).slice(0, 64));
      expect(await store.admit('S2', DIGEST, 1000)).toBe(false);
    });

    it('keeps the primary seat, and forgets the match on delete', async () => {
      const store = await make();
      await store.setPrimary('S3', 'standby');
      expect(await store.get('S3')).toMatchObject({ primary: 'standby' });
      await store.delete('S3');
      expect(await store.get('S3')).toBeUndefined();
    });

    // Only for adapters whose state another store can open (not the in-memory one): not registered, rather than skipped, elsewhere.
    if (harness.reopen) it('is shared: another store on the same state sees the window, the standby and the seat', async () => {
      const store = await make();
      await store.arm('S4', 5000);
      expect(await store.admit('S4', DIGEST, 1000)).toBe(true);
      await store.setPrimary('S4', 'standby');
      const other = track(await harness.reopen!());
      await expect.poll(async () => await other.get('S4'), { timeout: 5000 }).toEqual({ armedUntil: 0, secretDigest: DIGEST, primary: 'standby' });
    });
  });
}
