// expectEqual (test/helpers/equal.ts) is the per-message check of the replay-long tests: it must
// pass exactly when vitest's toEqual passes, and fail with toEqual's message otherwise.
import { describe, expect, it } from 'vitest';
import { expectEqual } from '../helpers/equal.js';

describe('expectEqual', () => {
  it('passes on deeply equal values, as toEqual does also when one side has an undefined property', () => {
    expectEqual({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] });
    expectEqual({ a: 1, gone: undefined }, { a: 1 });
  });

  it('fails on any difference, with the label and toEqual\'s message', () => {
    expect(() => expectEqual({ a: [1, { b: 'x' }] }, { a: [1, { b: 'y' }] }, 'after record 7')).toThrow(/^after record 7: expected/);
    expect(() => expectEqual([1, 2], [1, 2, 3])).toThrow();
    expect(() => expectEqual({ n: 1 }, { n: '1' })).toThrow();
  });
});
