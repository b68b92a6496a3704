// BracketStore of DATA_DIR (brackets/bracket-store.ts): in memory, kept in a file when given one
// (the embedded default: DATA_DIR/brackets.json): read at construction, written after every change
// atomically and owner-only (base/atomic-file.ts: the file holds the links' platform tokens), so a
// link or a report's state is on disk before the operator is answered or the next report goes.
import { readVersionedFile, writeFileAtomicSync } from '../../../base/atomic-file.js';
import type { BracketDoc, BracketStore } from '../../bracket-store.js';

/** The file of the embedded default's bracket links, in DATA_DIR. */
export const BRACKETS_FILE = 'brackets.json';

const FILE_VERSION = 1;

export class DataDirBracketStore implements BracketStore {
  private doc: BracketDoc = { links: [], sets: {} };

  /** `file`: where the links are kept (null: memory only). An unreadable file stops the start. */
  constructor(private readonly file: string | null = null) {
    if (file === null) return;
    const kept = readVersionedFile(file, 'a brackets file', FILE_VERSION, 'brackets', 'the linked brackets') as Partial<BracketDoc> | undefined;
    if (kept === undefined) return;
    if (!Array.isArray(kept.links) || typeof kept.sets !== 'object' || kept.sets === null) throw new Error(`${file}: not a brackets file of version ${FILE_VERSION}`);
    this.doc = { links: kept.links, sets: kept.sets, syncs: kept.syncs ?? {} };
  }

  async read(): Promise<BracketDoc> {
    return structuredClone(this.doc);
  }

  async update(change: (doc: BracketDoc) => BracketDoc | undefined): Promise<BracketDoc> {
    const next = change(structuredClone(this.doc));
    if (next !== undefined) {
      this.doc = structuredClone(next);
      if (this.file !== null) writeFileAtomicSync(this.file, JSON.stringify({ version: FILE_VERSION, brackets: this.doc }));
    }
    return structuredClone(this.doc);
  }

  /** One process: it always leads. */
  async lead(): Promise<boolean> {
    return true;
  }

  close(): void {}
}
