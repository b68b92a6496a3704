// SessionStore on STATE_DIR (sessions/session-store.ts): the memory adapter, read back from
// `sessions.json` at start (its sessions resumable by the digest of the id a client presents), and
// written there every SNAPSHOT_INTERVAL_MS when it changed, and at shutdown. A session put (a logon)
// is also written at once, synchronously, before the logon is answered (files.ts `sessions-new.json`).
import { sha256Hex } from '../../../base/hashing.js';
import type { Logger } from '../../../base/log.js';
import type { NewSession } from '../../session-store.js';
import { MemorySessionStore } from '../memory/session-store.js';
import type { StateFiles } from '../../../state-dir/files.js';

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
  private readonly now: () => number;

  constructor(private readonly files: StateFiles, options: StateDirSessionStoreOptions) {
    super(options.windowMs);
    const now = options.now ?? Date.now;
    this.now = now;
    const resumable = this.restore(files.loadSessions(), now());
    if (resumable > 0) options.log.info({ module: 'sessions', sessions: resumable }, 'resumable sessions restored from STATE_DIR');
    this.timer = setInterval(() => {
      if (this.version === this.written) return;
      this.written = this.version;
      this.files.writeSessions(this.persisted(now()));
    }, options.writeIntervalMs);
    this.timer.unref();
  }

  /** A logon: on disk when this returns (the caller answers the logon after it). */
  override put(session: NewSession): void {
    super.put(session);
    this.files.writeNewSessionSync({
      pidHash: sha256Hex(session.id), role: session.role, groupCode: session.groupCode, obsName: session.obsName, matchId: session.matchId,
      playerId: session.playerId, ...(session.seat === 'standby' ? { seat: session.seat } : {}), disconnectedAt: this.now(),
    });
  }

  /** The last write: the timer stops first, so no table written after this resolves lands half-way through the exit. */
  override async flush(now: number): Promise<void> {
    clearInterval(this.timer);
    this.files.writeSessions(this.persisted(now));
    await this.files.flush();
  }

  override close(): void {
    clearInterval(this.timer);
  }
}
