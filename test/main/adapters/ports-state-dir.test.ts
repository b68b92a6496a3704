// The contracts of the ports STATE_DIR backs (snapshots, sessions, standby) against its adapters, and what
// makes them durable: a second instance over the same directory finds what the first stored.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { StateFiles } from '../../../src/main/adapters/state-dir/files.js';
import { StateDirSessionStore } from '../../../src/main/adapters/state-dir/session-store.js';
import { StateDirSnapshotStore } from '../../../src/main/adapters/state-dir/snapshot-store.js';
import { StateDirStandbyStore } from '../../../src/main/adapters/state-dir/standby-store.js';
import { describeSessionStoreContract } from '../ports/session-store.contract.js';
import { describeSnapshotStoreContract } from '../ports/snapshot-store.contract.js';
import { describeStandbyStoreContract } from '../ports/standby-store.contract.js';

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
});
