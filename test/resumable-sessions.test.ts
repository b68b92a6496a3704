// Resumable sessions (clients.md 1.5; the session table, src/main/ingest/sessions.ts, behind the
// SessionStore port to come): a session is found by the pid socket.io issued to its socket while
// that socket is connected and for RECOVERY_WINDOW_MS after it went away; a takeover re-keys it
// under the new socket's pid; a stale socket's disconnect does not end a session another socket
// took over; with STATE_DIR it is exported with its pid as a SHA-256 digest and found again by the
// digest of the pid a reconnecting client presents. Time is a parameter here: no waiting.
// End to end (transport drops, takeovers, unknown pids): test/session-resume.test.ts, test/restart.test.ts.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SessionTable, type Session } from '../src/main/ingest/sessions.js';

const WINDOW = 180_000;
const T0 = 1_700_000_000_000;
const sha256 = (s: string) => crypto.createHash('sha256').update(s, 'utf8').digest('hex');

/** A fresh table: the one place to change when these run against another SessionStore adapter. */
const table = () => new SessionTable(WINDOW);

function observer(pid: string, socketId: string, groupCode = 'GRP001'): Session {
  return { role: 'observer', pid, groupCode, obsName: 'Obs#1', matchId: '', playerId: '', socketId, disconnectedAt: null };
}
function auxiliary(pid: string, socketId: string): Session {
  return { role: 'auxiliary', pid, groupCode: '', obsName: '', matchId: 'match-1', playerId: 'p-1', socketId, disconnectedAt: null };
}

describe('resumable within the window', () => {
  it('a connected session is resumable by its pid, and only by it', () => {
    const t = table();
    const s = observer('pid-a', 'sock-a');
    t.add(s);
    expect(t.resumable('pid-a', T0)).toBe(s);
    expect(t.resumable('pid-b', T0)).toBeUndefined();
    expect(t.resumable('', T0)).toBeUndefined();
    expect(t.resumable(undefined, T0)).toBeUndefined();
    expect(t.resumable(42, T0)).toBeUndefined();
    expect(t.resumable({ pid: 'pid-a' }, T0)).toBeUndefined();
    expect(t.resumable('x'.repeat(257), T0)).toBeUndefined();
  });

  it('a disconnected session stays resumable up to the window, not a moment longer; then it is gone', () => {
    const t = table();
    const s = observer('pid-a', 'sock-a');
    t.add(s);
    t.disconnected(s, 'sock-a', T0);
    expect(s.socketId).toBeNull();
    expect(t.resumable('pid-a', T0 + WINDOW)).toBe(s);
    expect(t.resumable('pid-a', T0 + WINDOW + 1)).toBeUndefined();
    expect(t.resumable('pid-a', T0)).toBeUndefined(); // dropped on that lookup, not only hidden
    expect(t.size).toBe(0);
  });

  it('sweep() drops disconnected sessions past the window and keeps the others', () => {
    const t = table();
    const gone = observer('pid-gone', 'sock-1');
    const recent = observer('pid-recent', 'sock-2');
    const connected = observer('pid-conn', 'sock-3');
    for (const s of [gone, recent, connected]) t.add(s);
    t.disconnected(gone, 'sock-1', T0);
    t.disconnected(recent, 'sock-2', T0 + WINDOW);
    t.sweep(T0 + WINDOW + 1);
    expect(t.filter(() => true).map((s) => s.pid).sort()).toEqual(['pid-conn', 'pid-recent']);
    expect(t.resumable('pid-conn', T0 + 10 * WINDOW)).toBe(connected); // connected sessions never expire
  });
});

describe('takeover', () => {
  it('rekey moves the session under the new pid and socket; the old pid no longer finds it', () => {
    const t = table();
    const s = observer('pid-old', 'sock-old');
    t.add(s);
    t.disconnected(s, 'sock-old', T0);
    const v = t.version;
    t.rekey(s, 'pid-new', 'sock-new');
    expect(t.version).toBeGreaterThan(v);
    expect(t.resumable('pid-old', T0 + 1)).toBeUndefined();
    expect(t.resumable('pid-new', T0 + 1)).toBe(s);
    expect(s).toMatchObject({ pid: 'pid-new', socketId: 'sock-new', disconnectedAt: null });
    // Connected again: the window no longer runs.
    expect(t.resumable('pid-new', T0 + 10 * WINDOW)).toBe(s);
    expect(t.size).toBe(1);
  });

  it('the disconnect of a stale socket (the one taken over) does not mark the session disconnected', () => {
    const t = table();
    const s = observer('pid-old', 'sock-old');
    t.add(s);
    t.rekey(s, 'pid-new', 'sock-new'); // taken over while the old socket was still open
    const v = t.version;
    t.disconnected(s, 'sock-old', T0); // the server closes the old socket afterwards
    expect(s.socketId).toBe('sock-new');
    expect(s.disconnectedAt).toBeNull();
    expect(t.version).toBe(v);
    expect(t.resumable('pid-new', T0 + 10 * WINDOW)).toBe(s);
    t.disconnected(s, 'sock-new', T0 + 1); // its own socket's disconnect counts
    expect(s.disconnectedAt).toBe(T0 + 1);
  });

  it('delete ends a session for good; filter finds sessions by what they are', () => {
    const t = table();
    const a = observer('pid-a', 'sock-a', 'GRPA');
    const b = observer('pid-b', 'sock-b', 'GRPB');
    const x = auxiliary('pid-x', 'sock-x');
    for (const s of [a, b, x]) t.add(s);
    expect(t.filter((s) => s.role === 'observer' && s.groupCode === 'GRPA')).toEqual([a]);
    expect(t.filter((s) => s.role === 'auxiliary' && s.matchId === 'match-1')).toEqual([x]);
    t.delete(a);
    expect(t.resumable('pid-a', T0)).toBeUndefined();
    expect(t.size).toBe(2);
  });
});

describe('persisted (STATE_DIR)', () => {
  it('exports pids as SHA-256 digests only; open sessions count as disconnected at the export', () => {
    const t = table();
    const open = observer('pid-open', 'sock-1');
    const gone = auxiliary('pid-gone', 'sock-2');
    t.add(open);
    t.add(gone);
    t.disconnected(gone, 'sock-2', T0 - 5000);
    const list = t.exportPersisted(T0);
    expect(list).toEqual(expect.arrayContaining([
      { pidHash: sha256('pid-open'), role: 'observer', groupCode: 'GRP001', obsName: 'Obs#1', matchId: '', playerId: '', disconnectedAt: T0 },
      { pidHash: sha256('pid-gone'), role: 'auxiliary', groupCode: '', obsName: '', matchId: 'match-1', playerId: 'p-1', disconnectedAt: T0 - 5000 },
    ]));
    expect(list).toHaveLength(2);
    expect(JSON.stringify(list)).not.toContain('pid-open');
    expect(JSON.stringify(list)).not.toContain('pid-gone');
  });

  it('imports what is within the window, found again by the digest of the pid presented, under that pid from then on', () => {
    const before = table();
    const s = observer('pid-1', 'sock-1');
    before.add(s);
    before.add(observer('pid-2', 'sock-2', 'GRP002'));
    const exported = before.exportPersisted(T0);

    const after = table();
    expect(after.importPersisted(exported, T0 + 1000)).toBe(2);
    expect(after.size).toBe(2);
    expect(after.resumable('pid-unknown', T0 + 1000)).toBeUndefined();
    const found = after.resumable('pid-1', T0 + 2000);
    expect(found).toMatchObject({ role: 'observer', pid: 'pid-1', groupCode: 'GRP001', obsName: 'Obs#1', socketId: null, disconnectedAt: T0 });
    expect(after.resumable('pid-1', T0 + 3000)).toBe(found); // now under the pid itself
    // Exported again: still a digest, and the one presented.
    expect(after.exportPersisted(T0 + 3000).map((p) => p.pidHash).sort()).toEqual([sha256('pid-1'), sha256('pid-2')].sort());
  });

  it('skips what is past the window at import, and what passes it before the client is back', () => {
    const before = table();
    const old = observer('pid-old', 'sock-1');
    before.add(old);
    before.disconnected(old, 'sock-1', T0 - WINDOW - 1);
    before.add(observer('pid-late', 'sock-2'));
    const exported = before.exportPersisted(T0);

    const after = table();
    expect(after.importPersisted(exported, T0)).toBe(1); // pid-old is past the window already
    expect(after.resumable('pid-old', T0)).toBeUndefined();
    expect(after.resumable('pid-late', T0 + WINDOW + 1)).toBeUndefined(); // came back too late
    expect(after.size).toBe(0);
  });

  it('ignores malformed entries; sweep drops restored entries past the window', () => {
    const t = table();
    const good = { pidHash: sha256('pid-g'), role: 'observer' as const, groupCode: 'G', obsName: 'o', matchId: '', playerId: '', disconnectedAt: T0 };
    const bad = [{ ...good, pidHash: 42 }, { ...good, role: 'admin' }] as unknown as typeof good[];
    expect(t.importPersisted([good, ...bad], T0)).toBe(1);
    t.sweep(T0 + WINDOW + 1);
    expect(t.size).toBe(0);
    expect(t.resumable('pid-g', T0 + 1)).toBeUndefined();
  });

  it('every change raises the version (the service writes the table when it moved)', () => {
    const t = table();
    const versions = [t.version];
    const s = observer('pid-a', 'sock-a');
    t.add(s);
    versions.push(t.version);
    t.disconnected(s, 'sock-a', T0);
    versions.push(t.version);
    t.rekey(s, 'pid-b', 'sock-b');
    versions.push(t.version);
    t.delete(s);
    versions.push(t.version);
    t.importPersisted([], T0);
    versions.push(t.version);
    for (let i = 1; i < versions.length; i++) expect(versions[i]).toBeGreaterThan(versions[i - 1]);
  });
});
