// The RecordStore and DeadLetterStore contracts (events/record-store.ts) against the embedded adapters
// (events/adapters/state-dir/record-store.ts) on the journal's files in a temporary directory, and without files
// (memory only); a reopened store is the process after a restart.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll } from 'vitest';
import { JournalFiles } from '../../../src/main/events/journal-files.js';
import { FileDeadLetters, FileRecordStore } from '../../../src/main/events/adapters/state-dir/record-store.js';
import type { DeadLetterStore, RecordStore } from '../../../src/main/events/record-store.js';
import { describeDeadLetterStoreContract, describeRecordStoreContract } from './record-store.contract.js';

const log = pino({ level: 'silent' });
const dirs: string[] = [];
afterAll(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });

function files(): JournalFiles {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'records-'));
  dirs.push(dir);
  return new JournalFiles(dir, log);
}

const opened = new WeakMap<RecordStore | DeadLetterStore, { files: JournalFiles; retentionMs: number }>();
/** The process ends (its pending files written), and a new one opens the same directory. */
const restarted = (first: RecordStore | DeadLetterStore) => {
  const was = opened.get(first)!;
  was.files.close();
  return { files: new JournalFiles(was.files.dir, log), retentionMs: was.retentionMs };
};

describeRecordStoreContract('files', {
  make: (retentionMs) => {
    const f = files();
    const store = new FileRecordStore(f, retentionMs);
    opened.set(store, { files: f, retentionMs });
    return store;
  },
  reopen: (first) => {
    const { files: f, retentionMs } = restarted(first);
    return new FileRecordStore(f, retentionMs);
  },
});

describeDeadLetterStoreContract('files', {
  make: (retentionMs) => {
    const f = files();
    const store = new FileDeadLetters(f);
    opened.set(store, { files: f, retentionMs });
    return store;
  },
  reopen: (first) => new FileDeadLetters(restarted(first).files),
});

// Without files (a journal with no disk) the records stay in memory: "another store" is the same one.
describeRecordStoreContract('memory', { make: (retentionMs) => new FileRecordStore(null, retentionMs), reopen: (first) => first });
describeDeadLetterStoreContract('memory', { make: () => new FileDeadLetters(null), reopen: (first) => first });
