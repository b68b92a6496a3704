// Every repository path that a comment or a document cites exists: a newcomer who follows a
// citation (a test named in a port's header, a source file named in docs/architecture.md) finds it.
// Moves and splits rename files; this fails on the first stale citation it leaves behind.
//
// Three forms are checked. A path from the repository's root (src/main/base/events.ts) must exist as
// written. A relative path (matches/cluster.ts, ../helpers/clients.ts) must exist under the
// citing file's folder or one of the folders above it; documents and files outside src/ cite source
// files from src/main/, src/workers/ or src/, so those are tried too. A bare file name (pool.ts)
// must name a file of the repository. A path right after a possessive (socket.io's lib/socket.ts,
// the overlay's `assets/config/config.json`) names another project's file and is not checked.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const SCANNED = ['src', 'test', 'bench', 'scripts', 'docs', 'deploy', 'contract', 'README.md', 'data/README.md'];
const TOP = '(?:src|test|bench|docs|scripts|data|deploy|contract)';
/** A path under one of the repository's folders, with an extension. */
const CITED = new RegExp(`(?<![\\w./-])(${TOP}\\/[\\w./-]*[\\w-]\\.(?:ts|md|json|mjs|lua|conf|yml|yaml|svg|png|replay))(?![\\w/])`, 'g');
/** A relative path (at least one folder, or ./ and ../) or a bare file name, not after a possessive. */
const RELATIVE = /(?<![\w./@$:-])(?<!'s `?)((?:\.\.?\/)*(?:[\w-]+\/)*[\w-]+\.(?:ts|mjs|lua|json|md))(?![\w/])/g;
/** Where documents and files outside src/ cite source files from. */
const SOURCE_ROOTS = ['src/main', 'src/workers', 'src'];
/** Written by a benchmark run (git-ignored), not committed. */
const GENERATED = /^bench\/results\//;
/** Bare names of files the repository does not hold, each for a reason. */
const NOT_HERE = new Set([
  'sessions.json', 'sessions-new.json', 'standby.json', // written under STATE_DIR at run time (adapters/state-dir/)
  'deliveries.json', 'dead-letters.json', 'batches.json', // the webhook outbox's state, written under events/ at run time (events/journal-files.ts)
  'fixtures.json', // the schedule, written under DATA_DIR at run time (schedule/adapters/data-dir/fixture-store.ts)
  'output-delays.json', // the output delays, written under DATA_DIR at run time (output-delay/adapters/data-dir/output-delay-store.ts)
  'brackets.json', // the linked brackets with their tokens, written under DATA_DIR at run time (brackets/adapters/data-dir/bracket-store.ts)
  'webhook-endpoints.json', // the webhook endpoints added through the admin API, written under DATA_DIR at run time (events/adapters/data-dir/webhook-endpoint-store.ts)
  'config.json', // the overlay's own configuration file (docs/client-contract.md)
  'players.json', // a feed's URL name (GET /feeds/:code/players.json, docs/feeds.md), not a file
]);
/** Names the old documents by their old names, the ones it checks that nothing else cites. */
const OLD_NAMES = 'test/repo/standalone.test.ts';

function files(p: string): string[] {
  const full = path.join(root, p);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return [p];
  return fs.readdirSync(full).flatMap((name) => files(path.join(p, name)));
}

/** Every file name in the repository (without node_modules, dist and git's own). */
function allNames(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) { if (!['node_modules', 'dist', '.git'].includes(e.name)) walk(path.join(dir, e.name)); } else names.add(e.name);
    }
  };
  walk(root);
  return names;
}

/**
 * The cited text of a file: a document whole, a source file's comments only (code may name paths it
 * makes up): whole comment lines, and what follows ` // ` on a line of code.
 */
function citedText(file: string): string {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  if (!/\.(ts|mjs|js)$/.test(file)) return text;
  return text.split('\n').map((line) => (/^\s*(\/\/|\/?\*)/.test(line) ? line : line.includes(' // ') ? line.slice(line.indexOf(' // ')) : '')).join('\n');
}

/** The folders a relative citation in `file` may start from: its own, those above it, then the source roots. */
function bases(file: string): string[] {
  const found: string[] = [];
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    found.push(dir);
    if (dir === '.') break;
  }
  return file.startsWith('src/') ? found : [...found, ...SOURCE_ROOTS];
}

const scanned = () => SCANNED.flatMap(files).filter((f) => /\.(ts|mjs|md|yml|conf)$/.test(f));

describe('citations', () => {
  it('every path from the root that a comment or a document cites exists', () => {
    const stale: string[] = [];
    for (const file of scanned()) {
      for (const m of citedText(file).matchAll(CITED)) {
        const cited = m[1];
        if (GENERATED.test(cited)) continue;
        const exists = fs.existsSync(path.join(root, cited)) || fs.existsSync(path.join(root, cited.replace(/\.js$/, '.ts')));
        if (!exists) stale.push(`${file}: ${cited}`);
      }
    }
    expect(stale).toEqual([]);
  });

  it('every relative path and every file name that a comment or a document cites exists', () => {
    const names = allNames();
    const stale: string[] = [];
    for (const file of scanned()) {
      for (const m of citedText(file).matchAll(RELATIVE)) {
        const cited = m[1];
        if (new RegExp(`^${TOP}/`).test(cited)) continue; // a path from the root: the check above
        if (/^[A-Z][A-Z_]*\//.test(cited)) continue; // under a setting's folder (DATA_DIR/…): written at run time
        const exists = cited.includes('/')
          ? bases(file).some((base) => fs.existsSync(path.join(root, base, cited)))
          : names.has(cited) || NOT_HERE.has(cited) || file === OLD_NAMES;
        if (!exists) stale.push(`${file}: ${cited}`);
      }
    }
    expect(stale).toEqual([]);
  });

  it('resolves a relative citation the way the check reads it', () => {
    // The check itself: a relative path found from the citing folder or above, a wrong one not.
    const exists = (file: string, cited: string) => bases(file).some((base) => fs.existsSync(path.join(root, base, cited)));
    expect(exists('src/main/events.ts', 'matches/cluster.ts')).toBe(true);
    expect(exists('src/main/matches/forwarding.ts', 'matches/cluster.ts')).toBe(true);
    expect(exists('src/main/events.ts', 'cluster/owner-inbox-routing.ts')).toBe(false);
    expect(exists('docs/architecture.md', 'redis/keys.ts')).toBe(true);
    expect([..."socket.io's lib/socket.ts, see ./b.ts".matchAll(RELATIVE)].map((m) => m[1])).toEqual(['./b.ts']);
  });
});
