// The preview store (PreviewStore port, memory adapter src/main/stores/previews.ts): a preview
// lives PREVIEW_TTL_MS from its last creation, reads do not extend it, the bounds (count and
// bytes) refuse a new code with 'full' but never a replacement, and expired previews are freed
// without reads. Over HTTP, with the real service: test/rest-lifecycle.test.ts.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryPreviewStore } from '../src/main/stores/previews.js';

const TTL = 1000;
let stores: MemoryPreviewStore[] = [];
const store = (maxEntries = 3, maxBytes = 1_000_000) => {
  const s = new MemoryPreviewStore({ ttlMs: TTL, maxEntries, maxBytes, now: () => Date.now() });
  stores.push(s);
  return s;
};

beforeEach(() => { vi.useFakeTimers({ now: 5_000_000 }); });
afterEach(() => {
  for (const s of stores) s.close();
  stores = [];
  vi.useRealTimers();
});

describe('preview store', () => {
  it('serves the text as stored, codes exactly as given, for TTL after creation; reads do not extend it', async () => {
    const s = store();
    expect(await s.put('abcIO1', '{"a":1}')).toBe('stored');
    expect(await s.get('abcIO1')).toBe('{"a":1}');
    expect(await s.get('ABCIO1')).toBeUndefined();
    vi.advanceTimersByTime(TTL - 1);
    expect(await s.get('abcIO1')).toBe('{"a":1}');
    vi.advanceTimersByTime(1);
    expect(await s.get('abcIO1')).toBeUndefined();
  });

  it('a replacement restarts the life and takes the new text', async () => {
    const s = store();
    await s.put('REPL01', 'old');
    vi.advanceTimersByTime(600);
    expect(await s.put('REPL01', 'new')).toBe('stored');
    vi.advanceTimersByTime(600); // the old life is over
    expect(await s.get('REPL01')).toBe('new');
    vi.advanceTimersByTime(400);
    expect(await s.get('REPL01')).toBeUndefined();
  });

  it("is 'full' for a new code at maxEntries, still replaces an existing one, has room once entries expired", async () => {
    const s = store(3);
    for (const c of ['MAX001', 'MAX002', 'MAX003']) expect(await s.put(c, c)).toBe('stored');
    expect(await s.put('MAX004', 'x')).toBe('full');
    expect(await s.get('MAX004')).toBeUndefined();
    expect(await s.put('MAX002', 'replacement')).toBe('stored');
    expect(await s.size()).toBe(3);
    vi.advanceTimersByTime(TTL);
    expect(await s.put('MAX004', 'later')).toBe('stored');
    expect(await s.size()).toBe(1);
  });

  it("is 'full' past maxBytes (the texts' total length), counting a replacement's new length instead of its old one", async () => {
    const s = store(100, 100);
    expect(await s.put('BYTES1', 'x'.repeat(60))).toBe('stored');
    expect(await s.put('BYTES2', 'x'.repeat(41))).toBe('full');
    expect(await s.put('BYTES2', 'x'.repeat(40))).toBe('stored');
    expect(s.storedBytes).toBe(100);
    expect(await s.put('BYTES1', 'x'.repeat(61))).toBe('full'); // 61 + 40
    expect(await s.put('BYTES1', 'x'.repeat(10))).toBe('stored'); // 10 + 40
    expect(s.storedBytes).toBe(50);
    expect(await s.get('BYTES1')).toBe('x'.repeat(10));
  });

  it('frees expired previews and their bytes without any read (one head timer)', async () => {
    const s = store(3);
    for (const c of ['MAX001', 'MAX002', 'MAX003']) await s.put(c, `{"code":"${c}"}`);
    expect(s.held).toBe(3);
    expect(s.storedBytes).toBeGreaterThan(30);
    vi.advanceTimersByTime(TTL);
    expect(s.held).toBe(0);
    expect(s.storedBytes).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });
});
