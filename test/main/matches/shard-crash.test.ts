// A shard thread that dies (FAULT_INJECTION: an uncaught exception in the worker) is restarted;
// its matches are rebuilt from their latest snapshot and the batches since, so the match keeps
// streaming and ends in the same state as an uninterrupted run (recorded clock). The crash is
// logged with the group codes the shard owned. Crashing again and again falls back to snapshots
// only, then gives the matches up, and the service stays up throughout. The same holds for the
// shard on the main thread (SHARD_WORKERS=0): an exception in it is a thread's death, the pool
// replaces the shard (workers/shard/thread.ts startInlineShard).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAll, overlay } from '../../helpers/clients.js';
import { playReplay, recordedMatch, sendRecords } from '../../helpers/recorded.js';
import { startTestService, tempDir, type TestService } from '../../helpers/service.js';

const replay = recordedMatch();

type Log = { msg?: string; groupCodes?: string[]; mode?: string; lost?: string[] };

for (const [workers, what] of [['1', 'a shard thread'], ['0', 'the shard on the main thread (SHARD_WORKERS=0)']] as const) describe(`${what} that crashes`, () => {
  let svc: TestService;
  // STATE_DIR only to see the snapshot rounds: the main thread writes each match's latest snapshot
  // there as it gets it, the same snapshot a restarted shard is given.
  const stateDir = path.join(tempDir(), 'state');
  beforeAll(async () => {
    svc = await startTestService({ AUTH_KEY: 'k', TRUST_REPLAY_TIMESTAMPS: 'true', FAULT_INJECTION: 'true', SNAPSHOT_INTERVAL_MS: '200', STATE_DIR: stateDir, SHARD_WORKERS: workers });
  });
  afterAll(async () => {
    closeAll();
    await svc?.close();
  });

  const crashLogs = () => svc.logs.map((l) => JSON.parse(l) as Log).filter((j) => j.msg === 'shard crashed; its matches are rebuilt from their snapshots');
  /** Whether a snapshot of the match has reached the main thread (its STATE_DIR file; the shards take them every SNAPSHOT_INTERVAL_MS). */
  const hasSnapshot = (code: string) => fs.readdirSync(stateDir).filter((f) => f.startsWith('match-') && f.endsWith('.json')).some((f) => {
    try {
      return (JSON.parse(fs.readFileSync(path.join(stateDir, f), 'utf8')) as { groupCode?: string }).groupCode === code;
    } catch {
      return false; // removed meanwhile
    }
  });
  const statusUp = async () => ((await (await fetch(`${svc.rest}/status`)).json()) as { status: string }).status;

    it('is restarted; its live matches continue to the same final state as without the crash', async () => {
      const ref = await overlay(svc.broadcast, 'CRREF1');
      const refRun = await playReplay(replay, { url: svc.ingest, key: 'k', pace: 'instant', groupCode: 'CRREF1' });
      const expected = await ref.waitFor((f) => f.roundPhase === 'game_end', 20_000);
      refRun.socket.close();

      const fe = await overlay(svc.broadcast, 'CRASH1');
      const other = await overlay(svc.broadcast, 'CRASH2');
      const run = await playReplay(replay, { url: svc.ingest, key: 'k', pace: 'instant', groupCode: 'CRASH1', to: 900 });
      const run2 = await playReplay(replay, { url: svc.ingest, key: 'k', pace: 'instant', groupCode: 'CRASH2', to: 400 });
      await expect.poll(() => hasSnapshot('CRASH1') && hasSnapshot('CRASH2')).toBe(true); // a snapshot round
      await sendRecords(run.socket, replay, { pace: 'instant', groupCode: 'CRASH1', from: 900, to: 1400 });
      // The crash lands while the last records are still on their way to the shard.
      svc.crashShard(0);
      await sendRecords(run.socket, replay, { pace: 'instant', groupCode: 'CRASH1', from: 1400 });
      await sendRecords(run2.socket, replay, { pace: 'instant', groupCode: 'CRASH2', from: 400 });

      const final = await fe.waitFor((f) => f.roundPhase === 'game_end', 20_000);
      const final2 = await other.waitFor((f) => f.roundPhase === 'game_end', 20_000);
      expect({ ...final, groupCode: 'CRREF1' }).toEqual(expected);
      expect({ ...final2, groupCode: 'CRREF1' }).toEqual(expected);

      const logs = crashLogs();
      expect(logs).toHaveLength(1);
      expect(logs[0].groupCodes).toEqual(expect.arrayContaining(['CRASH1', 'CRASH2']));
      expect(logs[0].mode).toBe('full');
      const m = await svc.metrics();
      expect(m.value('ods_shard_restarts_total')).toBe(1);
      expect(m.value('ods_matches_lost_total')).toBe(0);
      expect(await statusUp()).toBe('UP');
      run.socket.close();
      run2.socket.close();
    }, 60_000);

    it('crashing again within the window falls back to snapshots, a third time gives the matches up; the service stays up', async () => {
      const fe = await overlay(svc.broadcast, 'CRASH3');
      const run = await playReplay(replay, { url: svc.ingest, key: 'k', pace: 'instant', groupCode: 'CRASH3', to: 300 });
      await fe.waitFor((f) => (f.teams as { players: unknown[] }[])[0].players.length === 5);
      await expect.poll(() => hasSnapshot('CRASH3')).toBe(true); // what the second crash restores from
      svc.crashShard(0); // second crash within 30 s of the first test's: snapshots only
      await expect.poll(() => crashLogs().length, { timeout: 15_000 }).toBe(2);
      expect(crashLogs()[1].mode).toBe('snapshots');
      expect(await svc.admin.has('CRASH3')).toBe(true);
      await sendRecords(run.socket, replay, { pace: 'instant', groupCode: 'CRASH3', from: 300, to: 320 });
      await expect.poll(() => fe.frames.length, { timeout: 15_000 }).toBeGreaterThan(1);

      svc.crashShard(0); // third: the matches are lost, and their sockets closed
      await expect.poll(() => crashLogs().length, { timeout: 15_000 }).toBe(3);
      expect(crashLogs()[2]).toMatchObject({ mode: 'none', lost: ['CRASH3'] });
      await expect.poll(() => svc.admin.has('CRASH3')).toBe(false);
      expect(await svc.metric('ods_matches_lost_total')).toBe(1);
      await expect.poll(() => run.socket.connected, { timeout: 15_000 }).toBe(false);
      expect(await statusUp()).toBe('UP');

      // The restarted shard takes new matches.
      const again = await overlay(svc.broadcast, 'CRASH4');
      const run4 = await playReplay(replay, { url: svc.ingest, key: 'k', pace: 'instant', groupCode: 'CRASH4', to: 50 });
      await again.waitFor((f) => f.map !== 'Loading');
      run4.socket.close();
    }, 60_000);
});
