// The repository stands on its own: no source, test, benchmark or script reads anything beside the
// checkout (the reference library a developer may have at ../shared is not there on a clone), and
// every document a code comment cites is in docs/.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const scanned = ['src', 'test', 'bench', '.ci', 'package.json', 'Dockerfile', 'vitest.config.ts'];

function files(p: string): string[] {
  const full = path.join(root, p);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return [p];
  return fs.readdirSync(full).flatMap((name) => files(path.join(p, name)));
}

const self = path.relative(root, import.meta.filename);
const all = scanned.flatMap(files).filter((f) => f !== self);

describe('the repository stands on its own', () => {
  it('nothing reads or cites a path outside the checkout', () => {
    const outside = /\.\.\/\.\.\/shared|\.\.\/shared\/|shared\/(?:data|spec|notes)\//;
    const hits = all.filter((f) => outside.test(fs.readFileSync(path.join(root, f), 'utf8')));
    expect(hits).toEqual([]);
  });

  it('the documents comments cite are in docs/, and the recorded match is in data/', () => {
    for (const doc of ['match-rules.md', 'client-contract.md', 'interface.md', 'stack-notes.md', 'architecture.md', 'reliability.md', 'benchmarks.md']) {
      expect(fs.existsSync(path.join(root, 'docs', doc)), doc).toBe(true);
    }
    expect(fs.existsSync(path.join(root, 'data', 'replays', 'icebox-19-rounds.replay'))).toBe(true);
    // Citations by the old names (clients.md, match-rules.md without docs/, stack.md, interface-spec) point nowhere on a clone.
    const stale = /(?<![\w/.-])(?:clients\.md|stack\.md|interface-spec)|(?<![\w/.-])match-rules\.md/;
    const hits = all.filter((f) => stale.test(fs.readFileSync(path.join(root, f), 'utf8')));
    expect(hits).toEqual([]);
  });
});
