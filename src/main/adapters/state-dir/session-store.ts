// SessionStore on STATE_DIR (ports/session-store.ts): the memory adapter, read back from
// `sessions.json` at start (its sessions resumable by the digest of the id a client presents), and
// written there every SNAPSHOT_INTERVAL_MS when it changed, and at shutdown.
import type { Logger } from '../../base/log.js';
import { MemorySessionStore } from '../memory/session-store.js';
import type { StateFiles } from './files.js';

export interface StateDirSessionStoreOptions {
  windowMs: number;
  /** How often the table is written when it changed (SNAPSHOT_INTERVAL_MS). */
  writeIntervalMs: number;
  log: Logger;
  now?: () => number;
}

export class StateDirSessionStore extends MemorySessionStore {
  /** The version last written (-1: none yet, so the first tick writes the table as read back). */
  private written = -1;
  private readonly timer: NodeJS.Timeout;

  constructor(private readonly files: StateFiles, options: StateDirSessionStoreOptions) {
    super(options.windowMs);
    const now = options.now ?? Date.now;
    const resumable = this.restore(files.loadSessions(), now());
    if (resumable > 0) options.log.info({ module: 'sessions', sessions: resumable }, 'resumable sessions restored from STATE_DIR');
    this.timer = setInterval(() => {
      if (this.version === this.written) return;
        this.files.writeSessions(this.persisted(now()));
    }, options.writeIntervalMs);
    this.timer.unref();
  }

  override async flush(now: number): Promise<void> {
    this.files.writeSessions(this.persisted(now));
    await this.files.flush();
  }

  override close(): void {
    clearInterval(this.timer);
  }
}
