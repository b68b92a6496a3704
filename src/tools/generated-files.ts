// Files the repository commits but a tool writes (contract/, src/workers/match/names-data.ts): one
// way to write them, or with `--check` to say which are not current, for every such tool.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, from dist/tools/ or src/tools/. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** True when the module at `moduleUrl` (its import.meta.url) is the script node was started with. */
export function isMainModule(moduleUrl: string): boolean {
  return Boolean(process.argv[1]) && path.resolve(process.argv[1]) === fileURLToPath(moduleUrl);
}

/**
 * Writes each file (absolute path → text) that differs, or with `--check` on the command line only
 * names them; then exits, 1 when a checked file was not current. `command` is what regenerates them.
 */
export function writeGeneratedFiles(files: Record<string, string>, command: string): never {
  const check = process.argv.includes('--check');
  let stale = false;
  for (const [target, text] of Object.entries(files)) {
    const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : null;
    if (current === text) continue;
    if (check) {
      stale = true;
      console.error(`${path.relative(process.cwd(), target)} is not current: run ${command}`);
    } else {
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, text);
      console.log(`wrote ${path.relative(process.cwd(), target)}`);
    }
  }
  process.exit(stale ? 1 : 0);
}
