// StandbyStore on STATE_DIR (standby/standby-store.ts): the memory adapter, read back from
// `standby.json` at start and written there (atomically, owner-only) after every change, so a
// restarted service knows each match's standby secret (as its sha-256 only) and which seat is primary.
import { MemoryStandbyStore } from '../memory/standby-store.js';
import type { Seat, StandbyRecord } from '../../standby-store.js';
import type { StateFiles } from '../../../state-dir/files.js';

const FILE = 'standby.json';

function load(files: StateFiles): Array<[string, StandbyRecord]> {
  const text = files.readNamed(FILE);
  if (text === null) return [];
  try {
    const parsed = JSON.parse(text) as { v?: number; matches?: Record<string, Partial<StandbyRecord>> };
    const out: Array<[string, StandbyRecord]> = [];
    for (const [code, r] of Object.entries(parsed.matches ?? {})) {
      const primary: Seat = r.primary === 'standby' ? 'standby' : 'group';
      out.push([code, { armedUntil: Number(r.armedUntil) || 0, secretDigest: typeof r.secretDigest === 'string' ? r.secretDigest : '', primary }]);
    }
    return out;
  } catch {
    return [];
  }
}

export class StateDirStandbyStore extends MemoryStandbyStore {
  constructor(private readonly files: StateFiles) {
    super(load(files));
  }

  protected override changed(): void {
    this.files.writeNamed(FILE, JSON.stringify({ v: 1, matches: Object.fromEntries(this.records) }));
  }
}
