// STATE_DIR's files: the live matches and the resumable-session table on disk, so that a
// restarted service resumes its matches (docs/reliability.md). One file per match, rewritten
// atomically (temporary file, then rename) when its shard snapshotted a change; `sessions.json` for
// the session table. Owner-only permissions (directory 0700, files 0600). Group secrets and session
// ids are stored as sha-256 digests only; the player-camera secret and access keys never. Used by
// the STATE_DIR adapters of SnapshotStore and SessionStore (snapshot-store.ts, session-store.ts).
//
// Those writes are asynchronous (off the event loop; on a loaded machine they lagged by seconds).
// What a logon makes is written synchronously before the logon is answered, to files no
// asynchronous write touches (so an older write in flight can never land over it): the match's
// creation (`created-<digest>.json`, until the match is removed; the loader prefers a snapshot of the
// same match) and the sessions logged on since the table last landed (`sessions-new.json`, each
// with a stamp; the loader takes those newer than the table's). docs/reliability.md, "Losses found".
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic, writeFileAtomicSync } from '../base/atomic-file.js';
import { sha256Hex } from '../base/hashing.js';
import type { Logger } from '../base/log.js';

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
  /** A creation file (`snapshot` is ''): the shard's `create` command's time and logon (no key, no secret). */
  created?: { now: number; logon: unknown };
}

/** The table and the sessions logged on since, each write stamped (stamps only grow). */
/** What STATE_DIR keeps of a session: its id as a digest only. */
export interface PersistedSession {
  /** sha-256 of the socket.io private session id, hex. */
  pidHash: string;
  role: 'observer' | 'auxiliary';
  groupCode: string;
  obsName: string;
  matchId: string;
  playerId: string;
  /** The standby's seat (sessions/session-store.ts `seat`); absent for the group's. */
  seat?: 'standby';
  /** When its socket went away (the shutdown time for sockets open at shutdown). */
  disconnectedAt: number;
}

interface SessionsFile { v: number; stamp?: number; sessions: PersistedSession[] }
interface NewSessionsFile { v: number; entries: Array<{ stamp: number; session: PersistedSession }> }

const MATCH_PREFIX = 'match-';
/** A match's creation file: not `match-…` (a snapshot's name), so nothing that looks for snapshots takes it for one. */
const CREATED_PREFIX = 'created-';
const SESSIONS_FILE = 'sessions.json';
const NEW_SESSIONS_FILE = 'sessions-new.json';

/** Which of two files of one group code a restart resumes: the newer match; of one match, its snapshot over its creation. */
const preferred = (a: PersistedMatch, b: PersistedMatch): PersistedMatch =>
  a.createdAt !== b.createdAt ? (a.createdAt > b.createdAt ? a : b) : (a.snapshot === '' ? b : a);

export class StateFiles {
  private readonly log: Logger;
  /** Per file: the write in progress and the next content waiting behind it (only the latest is kept), with what to do once it landed. */
  private readonly writing = new Map<string, Promise<void>>();
  private readonly next = new Map<string, { content: string | null; landed: Array<(ok: boolean) => void> }>();
  /** The last stamp given to a session write (the table's or a logon's). */
  private stamp = 0;
  /** Sessions logged on since the table last landed (what `sessions-new.json` holds). */
  private newSessions: NewSessionsFile['entries'] = [];
  /** The matches whose creation file is on disk (by group code: its createdAt) until their first snapshot lands. */
  private readonly created = new Map<string, number>();

  constructor(readonly dir: string, log: Logger) {
    this.log = log.child({ module: 'state' });
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.chmodSync(dir, 0o700);
  }

  private fileOf(groupCode: string, prefix = MATCH_PREFIX): string {
    return path.join(this.dir, `${prefix}${sha256Hex(groupCode).slice(0, 32)}.json`);
  }

  /** Every readable match file, one per group code (unreadable ones are logged and skipped). */
  loadMatches(): PersistedMatch[] {
    const out = new Map<string, PersistedMatch>();
    for (const name of fs.readdirSync(this.dir)) {
      if (!(name.startsWith(MATCH_PREFIX) || name.startsWith(CREATED_PREFIX)) || !name.endsWith('.json')) continue;
      try {
        const m = JSON.parse(fs.readFileSync(path.join(this.dir, name), 'utf8')) as PersistedMatch;
        if (m.v !== STATE_VERSION || typeof m.groupCode !== 'string' || typeof m.snapshot !== 'string' || typeof m.secretHash !== 'string') throw new Error('unknown format');
        if (m.snapshot === '' && (typeof m.created?.now !== 'number' || typeof m.created.logon !== 'object' || m.created.logon === null)) throw new Error('unknown format');
        if (m.snapshot === '') this.created.set(m.groupCode, m.createdAt); // deleted once a snapshot of it lands
        const other = out.get(m.groupCode);
        out.set(m.groupCode, other ? preferred(m, other) : m);
      } catch (err) {
        this.log.error({ file: name, error: (err as Error).message }, 'state file skipped');
      }
    }
    return [...out.values()];
  }

  /** The table as last written, and the sessions logged on after it (the newer of the two files). */
  loadSessions(): PersistedSession[] {
    const table = this.readJson<SessionsFile>(SESSIONS_FILE, 'session table file skipped');
    const since = this.readJson<NewSessionsFile>(NEW_SESSIONS_FILE, 'new sessions file skipped');
    const stamp = table?.v === STATE_VERSION ? table.stamp ?? 0 : 0;
    const later = since?.v === STATE_VERSION && Array.isArray(since.entries) ? since.entries.filter((e) => e.stamp > stamp) : [];
    this.stamp = Math.max(this.stamp, stamp, ...later.map((e) => e.stamp));
    return [...(table?.v === STATE_VERSION && Array.isArray(table.sessions) ? table.sessions : []), ...later.map((e) => e.session)];
  }

  /** Resolves true once this content (or a later one of the same file) is on disk, false when that write failed. */
  writeMatch(match: PersistedMatch): Promise<boolean> {
    const { groupCode, createdAt } = match;
    return new Promise((resolve) => {
      this.queue(this.fileOf(groupCode), JSON.stringify(match), (ok) => {
        // The match's first snapshot on disk makes its creation file needless (unless it is another match's by then).
        if (ok && this.created.get(groupCode) === createdAt) this.deleteCreated(groupCode);
        resolve(ok);
      });
    });
  }

  /** A match's creation, on disk when this returns (a failure is logged: the match goes on in memory). */
  writeCreatedSync(match: PersistedMatch): void {
    try {
      writeFileAtomicSync(this.fileOf(match.groupCode, CREATED_PREFIX), JSON.stringify(match));
      this.created.set(match.groupCode, match.createdAt);
    } catch (err) {
      this.log.error({ groupCode: match.groupCode, error: (err as Error).message }, 'state write failed: a restart before the match\'s first snapshot loses it');
    }
  }

  deleteMatch(groupCode: string): void {
    this.queue(this.fileOf(groupCode), null);
    this.deleteCreated(groupCode);
  }

  /** Synchronous: the next match of this code may write its creation file at once. */
  private deleteCreated(groupCode: string): void {
    this.created.delete(groupCode);
    try {
      fs.rmSync(this.fileOf(groupCode, CREATED_PREFIX), { force: true });
    } catch (err) {
      this.log.error({ groupCode, error: (err as Error).message }, 'state file not deleted');
    }
  }

  writeSessions(sessions: PersistedSession[]): void {
    const stamp = this.nextStamp();
    const landed = (ok: boolean) => { if (ok) this.newSessions = this.newSessions.filter((e) => e.stamp > stamp); };
    this.queue(path.join(this.dir, SESSIONS_FILE), JSON.stringify({ v: STATE_VERSION, stamp, sessions } satisfies SessionsFile), landed);
  }

  /** A session just logged on, on disk when this returns (with those since the table last landed; a failure is logged). */
  writeNewSessionSync(session: PersistedSession): void {
    this.newSessions.push({ stamp: this.nextStamp(), session });
    try {
      writeFileAtomicSync(path.join(this.dir, NEW_SESSIONS_FILE), JSON.stringify({ v: STATE_VERSION, entries: this.newSessions } satisfies NewSessionsFile));
    } catch (err) {
      this.log.error({ error: (err as Error).message }, 'state write failed: a restart before the session table is written loses the session');
    }
  }

  private nextStamp(): number {
    this.stamp = Math.max(this.stamp + 1, Date.now());
    return this.stamp;
  }

  private readJson<T>(name: string, skipped: string): T | undefined {
    const file = path.join(this.dir, name);
    try {
      return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) as T : undefined;
    } catch (err) {
      this.log.error({ file: name, error: (err as Error).message }, skipped);
      return undefined;
    }
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

  /** Latest content wins: a write waits behind the one in progress for the same file; null deletes. A replaced content's `landed` waits for its replacement's. */
  private queue(file: string, content: string | null, landed?: (ok: boolean) => void): void {
    const waiting = this.next.get(file)?.landed ?? [];
    if (landed) waiting.push(landed);
    this.next.set(file, { content, landed: waiting });
    if (!this.writing.has(file)) this.writing.set(file, this.drain(file));
  }

  private async drain(file: string): Promise<void> {
    while (this.next.has(file)) {
      const { content, landed } = this.next.get(file)!;
      this.next.delete(file);
      try {
        if (content === null) {
          await fs.promises.rm(file, { force: true });
        } else {
          await writeFileAtomic(file, content);
        }
        for (const done of landed) done(true);
      } catch (err) {
        this.log.error({ file: path.basename(file), error: (err as Error).message }, 'state write failed');
        for (const done of landed) done(false);
      }
    }
    this.writing.delete(file);
  }
}
