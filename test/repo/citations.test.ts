// Every repository path that a comment or a document cites exists: a newcomer who follows a
// citation (a test named in a port's header, a source file named in docs/architecture.md) finds it.
// Moves and splits rename files; this fails on the first stale citation it leaves behind.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const SCANNED = ['src', 'test', 'bench', 'scripts', 'docs', 'deploy', 'contract', 'README.md', 'data/README.md'];
/** A path under one of the repository's folders, with an extension. */
const CITED = /(?<![\w./-])((?:src|test|bench|docs|scripts|data|deploy|contract)\/[\w./-]*[\w-]\.(?:ts|md|json|mjs|lua|conf|yml|yaml|svg|png|replay))(?![\w/])/g;
/** Written by a benchmark run (git-ignored), not committed. */
const GENERATED = /^bench\/results\//;

function files(p: string): string[] {
  const full = path.join(root, p);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return [p];
  return fs.readdirSync(full).flatMap((name) => files(path.join(p, name)));
}

/** The cited text of a file: a document whole, a source file's comments only (code may name paths it makes up). */
function citedText(file: string): string {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  if (!/\.(ts|mjs|js)$/.test(file)) return text;
  return text.split('\n').filter((line) => /^\s*(\/\/|\/?\*)/.test(line) || line.includes(' // ')).join('\n');
}

describe('citations', () => {
  it('every path a comment or a document cites exists', () => {
    const stale: string[] = [];
    for (const file of SCANNED.flatMap(files).filter((f) => /\.(ts|mjs|md|yml|conf)$/.test(f))) {
      for (const m of citedText(file).matchAll(CITED)) {
        const cited = m[1];
        if (GENERATED.test(cited)) continue;
        const exists = fs.existsSync(path.join(root, cited)) || fs.existsSync(path.join(root, cited.replace(/\.js$/, '.ts')));
        if (!exists) stale.push(`${file}: ${cited}`);
      }
    }
    expect(stale).toEqual([]);
  });
});
