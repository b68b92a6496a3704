// One file written atomically and owner-only: the text goes to a temporary file beside it (mode
// 0600, created afresh), which then replaces the file (rename): a reader or a crash sees the old
// content or the new, never a part. Synchronous: the operator's change is on disk before they are
// answered. The directory is created owner-only when missing.
import fs from 'node:fs';
import path from 'node:path';

export function writeFileAtomicSync(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  // A temporary file left by a crash may have another mode: `mode` applies only to a new file.
  fs.rmSync(tmp, { force: true });
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  fs.renameSync(tmp, file);
}
