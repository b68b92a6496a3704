// STATE_DIR's files: the live matches and the resumable-session table on disk, so that a
// restarted service resumes its matches (docs/reliability.md). One file per match, rewritten
// atomically (temporary file, then rename) when its shard snapshotted a change; `sessions.json` for
// the session table. Owner-only permissions (directory 0700, files 0600). Group secrets and session
// ids are stored as sha-256 digests only; the player-camera secret and access keys never. Used by
// the STATE_DIR adapters of SnapshotStore and SessionStore (snapshot-store.ts, session-store.ts).
import fs from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../../base/hashing.js';
import type { Logger } from '../../base/log.js';
import type { PersistedSession } from '../memory/session-store.js';

export const STATE_VERSION = 1;

export interface PersistedMatch {
  v: number;
  groupCode: string;
  /** sha-256 of the group secret, hex. */
  secretHash: string;
  matchId: string;
  organizationId: string;
  isSupporter: boolean;
  /** Which access key (or organisation) created it, for MAX_MATCHES_PER_KEY: a digest, never the key. */
  keyId: string;
  createdAt: number;
  teams: { leftTeam: unknown; rightTeam: unknown };
  /** The shard's snapshot text (workers/shard/snapshots.ts snapshotText). */
  snapshot: string;
  savedAt: number;
  /** The owner's epoch when it was written (absent in files of earlier versions: 0). */
  epoch?: number;
}

const MATCH_PREFIX = 'match-';
const SESSIONS_FILE = 'sessions.json';

export class StateFiles {
  private readonly log: Logger;
  /** Per file: the write in progress and the next content waiting behind it (only the latest is kept). */
  private readonly writing = new Map<string, Promise<void>>();
  private readonly next = new Map<string, string | null>();

  constructor(readonly dir: string, log: Logger) {
    this.log = log.child({ module: 'state' });
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
  }

  private fileOf(groupCode: string): string {
    return path.join(this.dir, `${MATCH_PREFIX}${sha256Hex(groupCode).slice(0, 32)}.json`);
  }

  /** Every readable match file (unreadable ones are logged and skipped). */
  loadMatches(): PersistedMatch[] {
    const out: PersistedMatch[] = [];
    for (const name of fs.readdirSync(this.dir)) {
      if (!name.startsWith(MATCH_PREFIX) || !name.endsWith('.json')) continue;
      try {
        const m = JSON.parse(fs.readFileSync(path.join(this.dir, name), 'utf8')) as PersistedMatch;
        if (m.v !== STATE_VERSION || typeof m.groupCode !== 'string' || typeof m.snapshot !== 'string' || typeof m.secretHash !== 'string') throw new Error('unknown format');
        out.push(m);
      } catch (err) {
        this.log.error({ file: name, error: (err as Error).message }, 'state file skipped');
      }
    }
    return out;
  }

  loadSessions(): PersistedSession[] {
    const file = path.join(this.dir, SESSIONS_FILE);
    if (!fs.existsSync(file)) return [];
    try {
      const list = JSON.parse(fs.readFileSync(file, 'utf8')) as { v: number; sessions: PersistedSession[] };
      return list.v === STATE_VERSION && Array.isArray(list.sessions) ? list.sessions : [];
    } catch (err) {
      this.log.error({ error: (err as Error).message }, 'session table file skipped');
      return [];
    }
  }

  writeMatch(match: PersistedMatch): void {
    this.queue(this.fileOf(match.groupCode), JSON.stringify(match));
  }

  deleteMatch(groupCode: string): void {
    this.queue(this.fileOf(groupCode), null);
  }

  writeSessions(sessions: PersistedSession[]): void {
    this.queue(path.join(this.dir, SESSIONS_FILE), JSON.stringify({ v: STATE_VERSION, sessions }));
  }

  /** A small table of another adapter (standby-store.ts): its text, or null when there is none. */
  readNamed(name: string): string | null {
    const file = path.join(this.dir, name);
    try {
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
    } catch (err) {
      this.log.error({ file: name, error: (err as Error).message }, 'state file skipped');
      return null;
    }
  }

  writeNamed(name: string, content: string): void {
    this.queue(path.join(this.dir, name), content);
  }

  /** Resolves when every queued write is on disk. */
  async flush(): Promise<void> {
    while (this.writing.size > 0) await Promise.allSettled([...this.writing.values()]);
  }

  /** Latest content wins: a write waits behind the one in progress for the same file; null deletes. */
  private queue(file: string, content: string | null): void {
    this.next.set(file, content);
    if (!this.writing.has(file)) this.writing.set(file, this.drain(file));
  }

  private async drain(file: string): Promise<void> {
    while (this.next.has(file)) {
      const content = this.next.get(file)!;
      this.next.delete(file);
      try {
        if (content === null) {
          await fs.promises.rm(file, { force: true });
        } else {
          const tmp = `${file}.${process.pid}.tmp`;
          await fs.promises.writeFile(tmp, content, { mode: 0o600 });
          await fs.promises.rename(tmp, file);
        }
      } catch (err) {
        this.log.error({ file: path.basename(file), error: (err as Error).message }, 'state write failed');
      }
    }
    this.writing.delete(file);
  }
}
