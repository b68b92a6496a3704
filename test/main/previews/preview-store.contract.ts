// The PreviewStore contract (src/main/previews/preview-store.ts): every adapter must pass it. A harness
// makes fresh stores and lets time pass for their TTLs (a fake clock in memory, real time for a
// remote store with short TTLs).
import { describe, expect, it } from 'vitest';
import { closedAfterEach } from '../ports/opened-stores.js';
import type { PreviewStore } from '../../../src/main/previews/preview-store.js';

export interface PreviewStoreHarness {
  make(bounds: { ttlMs: number; maxEntries: number; maxBytes: number }): PreviewStore | Promise<PreviewStore>;
  /** Lets `ms` pass for the store's TTLs. */
  advance(ms: number): Promise<void>;
}

const TTL = 1000;
const roomy = { ttlMs: TTL, maxEntries: 100, maxBytes: 1_000_000 };

export function describePreviewStoreContract(name: string, harness: PreviewStoreHarness): void {
  describe(`PreviewStore contract: ${name}`, () => {
    const track = closedAfterEach<PreviewStore>();
    const make = async (bounds = roomy) => track(await harness.make(bounds));

    it('stores, replaces and reads records by their exact code', async () => {
      const store = await make();
      expect(await store.get('ABC123')).toBeUndefined();
      expect(await store.put('ABC123', '{"a":1}')).toBe('stored');
      expect(await store.get('ABC123')).toBe('{"a":1}');
      expect(await store.get('abc123')).toBeUndefined();
      expect(await store.put('ABC123', '{"a":2}')).toBe('stored');
      expect(await store.get('ABC123')).toBe('{"a":2}');
      expect(await store.size()).toBe(1);
    });

    it('create stores only under a free code', async () => {
      const store = await make();
      expect(await store.create('NEW001', '"first"')).toBe('stored');
      expect(await store.create('NEW001', '"second"')).toBe('exists');
      expect(await store.get('NEW001')).toBe('"first"');
      expect(await store.size()).toBe(1);
    });

    it('of two concurrent creations of one code, exactly one stores', async () => {
      const store = await make();
      const results = await Promise.all([store.create('RACE01', '"a"'), store.create('RACE01', '"b"')]);
      expect([...results].sort()).toEqual(['exists', 'stored']);
      expect(await store.get('RACE01')).toBe(results[0] === 'stored' ? '"a"' : '"b"');
    });

    it('a record lives TTL from its last store; reads do not extend it; an expired code is free again', async () => {
      const store = await make();
      await store.put('TTL001', '"x"');
      await harness.advance(TTL / 2);
      expect(await store.get('TTL001')).toBe('"x"');
      await store.put('TTL002', '"y"');
      await harness.advance(TTL / 2 + 50);
      expect(await store.get('TTL001')).toBeUndefined();
      expect(await store.get('TTL002')).toBe('"y"');
      expect(await store.size()).toBe(1);
      expect(await store.create('TTL001', '"again"')).toBe('stored');
      expect(await store.get('TTL001')).toBe('"again"');
    });

    it('refuses past the count bound without storing; replacing a record is not a new one', async () => {
      const store = await make({ ttlMs: TTL, maxEntries: 2, maxBytes: 1_000_000 });
      expect(await store.put('CNT001', '1')).toBe('stored');
      expect(await store.create('CNT002', '2')).toBe('stored');
      expect(await store.put('CNT003', '3')).toBe('full');
      expect(await store.create('CNT003', '3')).toBe('full');
      expect(await store.get('CNT003')).toBeUndefined();
      expect(await store.put('CNT001', '11')).toBe('stored');
      expect(await store.size()).toBe(2);
    });

    it('refuses past the byte bound; expired records give their bytes back', async () => {
      const store = await make({ ttlMs: TTL, maxEntries: 100, maxBytes: 10 });
      expect(await store.put('BYT001', '123456')).toBe('stored');
      expect(await store.put('BYT002', '12345')).toBe('full');
      expect(await store.put('BYT001', '1234567890')).toBe('stored'); // the replaced record's bytes are given back
      await harness.advance(TTL + 50);
      expect(await store.get('BYT001')).toBeUndefined();
      expect(await store.create('BYT002', '1234567890')).toBe('stored');
    });
  });
}
