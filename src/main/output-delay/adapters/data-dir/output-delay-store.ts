// OutputDelayStore of DATA_DIR (output-delay/output-delay-store.ts): in memory, kept in a file when given one (the
// embedded default: DATA_DIR/output-delays.json, operator data like the schedule): read at
// construction, written after every change atomically (a temporary file, then rename) and
// synchronously, so a delay is on disk before the operator is answered. A few writes an hour.
import { readVersionedFile, writeFileAtomicSync } from '../../../base/atomic-file.js';
import type { OutputDelayStore } from '../../output-delay-store.js';

/** The file of the embedded default's output delays, in DATA_DIR. */
export const OUTPUT_DELAYS_FILE = 'output-delays.json';

const FILE_VERSION = 1;

export class DataDirOutputDelayStore implements OutputDelayStore {
  private readonly seconds = new Map<string, number>();
  private changes = 0;

  /** `file`: where the delays are kept (null: memory only). An unreadable file stops the start. */
  constructor(private readonly file: string | null = null) {
    if (file === null) return;
    const delays = readVersionedFile(file, 'an output delays file', FILE_VERSION, 'delays', 'the delays') ?? {};
    for (const [code, s] of Object.entries(delays as Record<string, unknown>)) {
      if (typeof s === 'number' && Number.isInteger(s) && s > 0) this.seconds.set(code, s);
    }
  }

  async all(): Promise<Record<string, number>> {
    return Object.fromEntries(this.seconds);
  }

  async set(groupCode: string, seconds: number, max: number): Promise<boolean> {
    if (seconds > 0 && !this.seconds.has(groupCode) && this.seconds.size >= max) return false;
    if (seconds > 0) this.seconds.set(groupCode, seconds);
    else this.seconds.delete(groupCode);
    this.changes++;
    this.save();
    return true;
  }

  async revision(): Promise<number> {
    return this.changes;
  }

  close(): void {}

  private save(): void {
    if (this.file === null) return;
    writeFileAtomicSync(this.file, JSON.stringify({ version: FILE_VERSION, delays: Object.fromEntries(this.seconds) }));
  }
}
