// test/setup/durations.json (scripts/test-durations.mjs) orders the suite's longest files first
// (test/setup/sequencer.ts): a file renamed or removed must not linger there unnoticed.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const durations = JSON.parse(fs.readFileSync(path.join(root, 'test/setup/durations.json'), 'utf8')) as Record<string, number>;

describe('the measured durations of the longest test files', () => {
  it('name test files that exist, each with a time in seconds', () => {
    expect(Object.keys(durations).length).toBeGreaterThan(20);
    expect(Object.keys(durations).filter((f) => !f.endsWith('.test.ts') || !fs.existsSync(path.join(root, f)))).toEqual([]);
    expect(Object.values(durations).filter((s) => !(Number.isInteger(s) && s >= 4))).toEqual([]);
  });
});
