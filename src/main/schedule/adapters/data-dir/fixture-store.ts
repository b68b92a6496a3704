// FixtureStore of DATA_DIR (schedule/fixture-store.ts): in memory, kept in a file when given one (the embedded
// default: DATA_DIR/fixtures.json): read at construction, written after every change, atomically
// (a temporary file, then rename) and synchronously, so a change is on disk before its caller goes
// on (a crash right after a map's end keeps its result). Changes are an operator's upload or edit,
// a logon to a scheduled code and a map's end: a few a minute, never per message.
import { readVersionedFile, writeFileAtomicSync } from '../../../base/atomic-file.js';
import type { Fixture, FixtureAdd, FixtureStore } from '../../fixture-store.js';

/** The file of the embedded default's fixtures, in DATA_DIR. */
export const FIXTURES_FILE = 'fixtures.json';

const FILE_VERSION = 1;

export class DataDirFixtureStore implements FixtureStore {
  private readonly fixtures = new Map<string, Fixture>();
  private changes = 0;

  /** `file`: where the fixtures are kept (null: memory only). An unreadable file stops the start. */
  constructor(private readonly file: string | null = null) {
    if (file === null) return;
    const fixtures = readVersionedFile(file, 'a fixtures file', FILE_VERSION, 'fixtures', 'the schedule');
    if (fixtures !== undefined && !Array.isArray(fixtures)) throw new Error(`${file}: not a fixtures file of version ${FILE_VERSION}`);
    for (const f of (fixtures ?? []) as Fixture[]) this.fixtures.set(f.groupCode, f);
  }

  async add(fixtures: readonly Fixture[], max: number): Promise<FixtureAdd> {
    for (const f of fixtures) if (this.fixtures.has(f.groupCode)) return { ok: false, reason: 'exists', groupCode: f.groupCode };
    if (this.fixtures.size + fixtures.length > max) return { ok: false, reason: 'full', max };
    for (const f of fixtures) this.fixtures.set(f.groupCode, copy(f));
    this.save();
    return { ok: true };
  }

  async get(groupCode: string): Promise<Fixture | undefined> {
    const f = this.fixtures.get(groupCode);
    return f ? copy(f) : undefined;
  }

  async list(): Promise<Fixture[]> {
    return [...this.fixtures.values()].map(copy);
  }

  /** One synchronous step: atomic in this process. */
  async update(groupCode: string, change: (current: Fixture) => Fixture | null | undefined): Promise<Fixture | undefined> {
    const current = this.fixtures.get(groupCode);
    if (!current) return undefined;
    const next = change(copy(current));
    if (next === undefined) return copy(current);
    if (next === null) this.fixtures.delete(groupCode);
    else this.fixtures.set(groupCode, copy(next));
    this.save();
    return next === null ? undefined : copy(next);
  }

  async revision(): Promise<number> {
    return this.changes;
  }

  private save(): void {
    this.changes++;
    if (this.file === null) return;
    writeFileAtomicSync(this.file, JSON.stringify({ version: FILE_VERSION, fixtures: [...this.fixtures.values()] }));
  }

  close(): void {}
}

/** Callers never share the stored objects. */
function copy(f: Fixture): Fixture {
  return structuredClone(f);
}
