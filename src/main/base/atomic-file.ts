// The one atomic file writer of the main thread: a file written atomically and owner-only. The text
// goes to a temporary file beside it (mode 0600, created afresh), which then replaces the file
// (rename): a reader or a crash sees the old content or the new, never a part. The directory is
// created owner-only when missing. Synchronous where the operator's change must be on disk before
// they are answered (DATA_DIR's files, the event journal's records); asynchronous for STATE_DIR's
// files written while the matches run (state-dir/files.ts).
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

/** writeFileAtomicSync off the event loop: resolves once the file has replaced the old one. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await fs.promises.rm(tmp, { force: true });
  await fs.promises.writeFile(tmp, text, { mode: 0o600 });
  await fs.promises.rename(tmp, file);
}

/**
 * Reads a file that writeFileAtomicSync kept as `{ version, [member]: … }` (the operator's data in
 * DATA_DIR: the schedule, the output delays, the webhook endpoints): the member's value, undefined
 * when the file does not exist. An unreadable file or another version throws (it stops the start:
 * `what` names the file's kind, `moveAway` what starting without it would lose).
 */
export function readVersionedFile(file: string, what: string, version: number, member: string, moveAway: string): unknown {
  if (!fs.existsSync(file)) return undefined;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`${file}: not ${what} (${(err as Error).message}); move it away to start without ${moveAway}`);
  }
  if (parsed?.version !== version || typeof parsed[member] !== 'object' || parsed[member] === null) throw new Error(`${file}: not ${what} of version ${version}`);
  return parsed[member];
}
