// Which sources have no up-to-date build: every src/**/*.ts must have its dist/**/*.js, written
// after it (tsc rewrites every output on each build). A plain module (no vitest), for
// test/global-setup.ts and the test that checks the check.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Human-readable reasons, empty when dist/ is current. */
export function distStaleness(root = ROOT): string[] {
  const src = path.join(root, 'src');
  const dist = path.join(root, 'dist');
  const out: string[] = [];
  for (const file of fs.readdirSync(src, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts') || file.endsWith('.d.ts')) continue;
    const built = path.join(dist, file.replace(/\.ts$/, '.js'));
    const srcTime = fs.statSync(path.join(src, file)).mtimeMs;
    let builtTime: number;
    try {
      builtTime = fs.statSync(built).mtimeMs;
    } catch {
      out.push(`dist/${file.replace(/\.ts$/, '.js')} is missing`);
      continue;
    }
    if (builtTime < srcTime) out.push(`src/${file} changed after dist/${file.replace(/\.ts$/, '.js')} was built`);
  }
  return out;
}
