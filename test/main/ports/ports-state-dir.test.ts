// The contracts of the ports STATE_DIR backs (snapshots, sessions, standby) against its adapters, and what
// makes them durable: a second instance over the same directory finds what the first stored.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { StateFiles } from '../../../src/main/state-dir/files.js';
import { StateDirSessionStore } from '../../../src/main/sessions/adapters/state-dir/session-store.js';
import { StateDirSnapshotStore } from '../../../src/main/matches/adapters/state-dir/snapshot-store.js';
import { StateDirStandbyStore } from '../../../src/main/standby/adapters/state-dir/standby-store.js';
import { describeSessionStoreContract } from '../sessions/session-store.contract.js';
import { describeSnapshotStoreContract } from '../matches/snapshot-store.contract.js';
import { describeStandbyStoreContract } from '../standby/standby-store.contract.js';

const log = pino({ level: 'silent' });
const dirs: string[] = [];
const freshDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ods-ports-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => { for (const d of dirs) fs.rmSync(d, { recursive: true, force: true }); });

let snapshotDir = '';
describeSnapshotStoreContract('STATE_DIR', {
  make: () => new StateDirSnapshotStore(new StateFiles((snapshotDir = freshDir()), log)),
  reopen: () => new StateDirSnapshotStore(new StateFiles(snapshotDir, log)),
});

describeSessionStoreContract('STATE_DIR', {
  make: (windowMs) => new StateDirSessionStore(new StateFiles(freshDir(), log), { windowMs, writeIntervalMs: 60_000, log }),
});

let standbyDir = '';
let standbyFiles: StateFiles | null = null;
describeStandbyStoreContract('STATE_DIR', {
  make: () => new StateDirStandbyStore((standbyFiles = new StateFiles((standbyDir = freshDir()), log))),
  // The restarted service: what was written, read back from the same directory.
  reopen: async () => {
    await standbyFiles!.flush();
    return new StateDirStandbyStore(new StateFiles(standbyDir, log));
  },
});

describe('StateDirSessionStore', () => {
  it('a session written at shutdown is resumable in the next process by the id the client presents, within the window only', async () => {
    const dir = freshDir();
    let now = 5_000_000;
    const options = { windowMs: 10_000, writeIntervalMs: 60_000, log, now: () => now };
    const first = new StateDirSessionStore(new StateFiles(dir, log), options);
    first.put({ id: 'pid-held', role: 'observer', groupCode: 'G1', obsName: 'o', matchId: '', playerId: '', socketId: 's1' });
    first.put({ id: 'pid-gone', role: 'observer', groupCode: 'G2', obsName: 'o', matchId: '', playerId: '', socketId: 's2' });
    first.detach('pid-gone', 's2', now - 9_000);
    await first.flush(now);
    first.close();
    const text = fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8');
    expect(text).not.toContain('pid-held'); // ids are kept as digests only

    now += 2_000;
    const second = new StateDirSessionStore(new StateFiles(dir, log), options);
    expect(second.size()).toBe(1); // pid-gone's window had passed at the restart
    const taken = await second.takeOver('pid-held', 'pid-new', 's9', now);
    expect(taken?.session).toMatchObject({ id: 'pid-new', groupCode: 'G1', socketId: 's9' });
    expect(taken?.disconnectedAt).toBe(now - 2_000); // held at shutdown: gone since then
    expect(await second.takeOver('pid-gone', 'x', 's8', now)).toBeUndefined();
    second.close();
  });

  it('writes the table on its interval only when it changed, and never after the shutdown\'s flush', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const dir = freshDir();
      const files = new StateFiles(dir, log);
      const store = new StateDirSessionStore(files, { windowMs: 10_000, writeIntervalMs: 1_000, log });
      const stamp = async () => {
        await files.flush();
        return (JSON.parse(fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8')) as { stamp: number }).stamp;
      };
      store.put({ id: 'pid-a', role: 'observer', groupCode: 'G1', obsName: 'o', matchId: '', playerId: '', socketId: 's1' });
      vi.advanceTimersByTime(1_000);
      const first = await stamp();
      vi.advanceTimersByTime(5_000); // unchanged: five ticks write nothing
      expect(await stamp()).toBe(first);
      store.detach('pid-a', 's1', Date.now());
      vi.advanceTimersByTime(1_000);
      const second = await stamp();
      expect(second).toBeGreaterThan(first);
      await store.flush(Date.now());
      const last = await stamp();
      expect(last).toBeGreaterThan(second);
      // A change after the last write (a socket closing during the exit) is not written by a tick.
      store.put({ id: 'pid-b', role: 'observer', groupCode: 'G2', obsName: 'o', matchId: '', playerId: '', socketId: 's2' });
      vi.advanceTimersByTime(5_000);
      expect(await stamp()).toBe(last);
      expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      store.close();
    } finally {
      vi.useRealTimers();
    }
  });
});

// What a logon writes synchronously (docs/reliability.md, "Losses found"): on disk when the call
// returns, with no flush, so a SIGKILL right after the logon's ack loses neither.
describe('a logon\'s synchronous writes', () => {
  const record = (createdAt: number) => ({
    groupCode: 'SYNC01', secretDigest: 'ab'.repeat(32), matchId: '', organizationId: '', isSupporter: false, keyId: 'key:x', createdAt,
    teams: { leftTeam: { name: 'L' }, rightTeam: { name: 'R' } },
  });
  const logon = {
    groupCode: 'SYNC01', leftTeam: { name: 'L', tricode: 'L', url: '', attackStart: false }, rightTeam: { name: 'R', tricode: 'R', url: '', attackStart: true },
    organizationId: '', isSupporter: false, obsName: 'obs', clientVersion: '0.3.3',
  };

  it('a match\'s creation is loaded by the next process until a snapshot of it lands, and never replaces a newer match', async () => {
    const dir = freshDir();
    const files = new StateFiles(dir, log);
    const store = new StateDirSnapshotStore(files);
    store.keepCreated(record(1000), 3, { now: 1000, logon });
    // No flush: what a SIGKILL now would leave.
    const [loaded] = await new StateDirSnapshotStore(new StateFiles(dir, log)).loadAll();
    expect(loaded).toMatchObject({ groupCode: 'SYNC01', epoch: 3, text: '', created: { now: 1000, logon } });
    expect(store.latest('SYNC01')).toBeUndefined(); // no shard snapshot: a shard restart cannot rebuild from it

    // Its first snapshot lands: the creation file goes, the snapshot is what the next process loads.
    await store.put({ groupCode: 'SYNC01', epoch: 3, text: '{"slot":{},"match":{}}', savedAt: 2000, match: record(1000) });
    await store.flush();
    expect(fs.readdirSync(dir).filter((f) => f.startsWith('created-'))).toEqual([]);
    expect((await new StateDirSnapshotStore(new StateFiles(dir, log)).loadAll()).map((s) => [s.text, s.created])).toEqual([['{"slot":{},"match":{}}', undefined]]);

    // The match ends and a new one of the code logs on before the deletion lands (the old file
    // written back by hand, as it was before its deletion): the new one comes back.
    await store.delete('SYNC01', 3);
    await store.flush();
    store.keepCreated(record(5000), 3, { now: 5000, logon });
    fs.writeFileSync(path.join(dir, fs.readdirSync(dir).find((f) => f.startsWith('created-'))!.replace('created-', 'match-')),
      JSON.stringify({ v: 1, groupCode: 'SYNC01', secretHash: 'cd'.repeat(32), matchId: '', organizationId: '', isSupporter: false, keyId: '', createdAt: 1000, teams: {}, snapshot: '{"slot":{},"match":{}}', savedAt: 2000 }));
    const after = await new StateDirSnapshotStore(new StateFiles(dir, log)).loadAll();
    expect(after.map((s) => [s.match.createdAt, s.created?.now])).toEqual([[5000, 5000]]);
  });

  it('a session put is resumable in the next process before the table is written, and not once a later table left it out', async () => {
    const dir = freshDir();
    let now = 7_000_000;
    const options = { windowMs: 60_000, writeIntervalMs: 600_000, log, now: () => now };
    const first = new StateDirSessionStore(new StateFiles(dir, log), options);
    first.put({ id: 'pid-new', role: 'observer', groupCode: 'G9', obsName: 'o', matchId: '', playerId: '', socketId: 's1' });
    expect(fs.existsSync(path.join(dir, 'sessions.json'))).toBe(false);
    expect(fs.readFileSync(path.join(dir, 'sessions-new.json'), 'utf8')).not.toContain('pid-new'); // a digest only
    const second = new StateDirSessionStore(new StateFiles(dir, log), options);
    expect(second.takeOver('pid-new', 'pid-2', 's2', now)).toMatchObject({ session: { groupCode: 'G9' } });

    // The session ends and the table is written after: the next process does not bring it back.
    first.endNow({ observersOf: 'G9' });
    now += 1000;
    await first.flush(now);
    const third = new StateDirSessionStore(new StateFiles(dir, log), options);
    expect(third.takeOver('pid-new', 'pid-3', 's3', now)).toBeUndefined();
    for (const s of [first, second, third]) s.close();
  });
});
