// The house's size rule (docs/architecture.md): a module of src/ holds at most 350 lines, so that one
// file is one job a reader can hold at once. The one exception is generated data, not code.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const MAX_LINES = 350;
/** Written by `npm run names` (src/tools/names-table.ts): a table of display names, not logic. */
const GENERATED = new Set(['src/workers/match/names-data.ts']);

describe('module size', () => {
  it(`every module of src/ has at most ${MAX_LINES} lines (generated data aside)`, () => {
    const over: string[] = [];
    for (const file of fs.readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })) {
      const rel = `src/${file}`;
      if (!rel.endsWith('.ts') || GENERATED.has(rel)) continue;
      const lines = fs.readFileSync(path.join(ROOT, rel), 'utf8').split('\n').length - 1;
      if (lines > MAX_LINES) over.push(`${rel}: ${lines}`);
    }
    expect(over).toEqual([]);
  });
});
