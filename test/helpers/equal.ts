// Deep equality for checks made after every message of the recorded match: node's isDeepStrictEqual
// decides at a fraction of the cost of vitest's `toEqual` (measured on snapshot-from-frame.test.ts:
// docs/benchmarks.md, "The test suite's time"); only when it says the values differ does `toEqual`
// judge them, so the check passes exactly when `toEqual` would (it also counts an undefined property
// as absent) and a failure shows vitest's diff.
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';

export function expectEqual(actual: unknown, expected: unknown, message?: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, message).toEqual(expected);
}
