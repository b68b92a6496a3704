// The local data directory: generated certificate and access key. Owner-only permissions.
import fs from 'node:fs';
import path from 'node:path';

export function ensureDataDir(dir: string): string {
  const abs = path.resolve(dir);
  fs.mkdirSync(abs, { recursive: true, mode: 0o700 });
  return abs;
}

export function writePrivateFile(file: string, content: string): void {
  fs.writeFileSync(file, content, { mode: 0o600 });
}
