// A standby observer across a restart with STATE_DIR (docs/reliability.md, "A standby observer"):
// both observers' sessions are persisted with their seats; after the restart the standby resumes
// by itself as the standby (its data held, not applied), its secret still admits it, nothing of it is
// on disk in the clear; the primary then goes silent and the standby takes over to a clean final frame.
import fs from 'node:fs';
import path from 'node:path';
import type { Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { connectObserver, overlay, logon, observer } from '../../helpers/clients.js';
import { playReplay, recordedMatch, replayLogon } from '../../helpers/recorded.js';
import { restartableEnv, startTestService, type TestService } from '../../helpers/service.js';
import { frameWithout, standbyCopy, streamPair } from '../../helpers/standby.js';
import { yieldToIo } from '../../helpers/waits.js';

const replay = recordedMatch();
const KEY = 'standby-restart-key-01';
const CODE = 'SBRST1';
const HALF = Math.floor(replay.records.length / 2);

const sockets: Socket[] = [];
const services: TestService[] = [];
afterAll(async () => {
  for (const s of sockets) s.close();
  for (const s of services) await s.close();
});

const timeless = (raw: string) => frameWithout(raw, 'serverTime', 'groupCode');

describe('a standby observer with STATE_DIR', () => {
  it('survives a restart as the standby, and takes over afterwards', async () => {
    const { env, stateDir } = await restartableEnv(KEY);
    const first = await startTestService(env);
    services.push(first);
    // The reference: a clean single-observer run of the whole recording.
    const refFe = await overlay(first.broadcast, 'SBREF1');
    const ref = await playReplay(replay, { url: first.ingest, key: KEY, pace: 'instant', groupCode: 'SBREF1' });
    sockets.push(ref.socket);
    await refFe.waitFor((f) => f.roundPhase === 'game_end', 60_000);
    const reference = refFe.raw[refFe.raw.length - 1];

    const records = replay.records.map((r) => ({ ...r, groupCode: CODE }));
    const p = connectObserver(first.ingest);
    const s = connectObserver(first.ingest);
    sockets.push(p, s);
    expect((await logon(p, 'obs_logon', replayLogon(replay, { key: KEY, groupCode: CODE }))).ack.value).toBe(true);
    expect((await first.admin.request('POST', `/admin/matches/${CODE}/standby`)).status).toBe(200);
    const sAck = (await logon(s, 'obs_logon', replayLogon(replay, { key: KEY, groupCode: CODE, obsName: 'Standby#EUW' }))).ack;
    expect(sAck.value).toBe(true);
    const standbySecret = sAck.reason;
    await streamPair({ primary: p, standby: s, records: records.slice(0, HALF), cut: HALF, stop: () => undefined, gapMs: 2, lagMs: 100 });
    await expect.poll(async () => (await first.admin.match(CODE))?.links?.observers.length, { timeout: 10_000 }).toBe(2);

    await first.shutdown();
    // Nothing of the standby in the clear on disk.
    for (const f of fs.readdirSync(stateDir, { recursive: true, encoding: 'utf8' })) {
      if (fs.statSync(path.join(stateDir, f)).isFile()) expect(fs.readFileSync(path.join(stateDir, f), 'utf8')).not.toContain(standbySecret);
    }
    expect(fs.readdirSync(stateDir)).toContain('standby.json');

    const second = await startTestService(env);
    services.push(second);
    // Both clients come back by themselves and resume their sessions, each in its seat.
    await expect.poll(async () => (await second.admin.match(CODE))?.links?.observers.map((o) => o.role).sort(), { timeout: 20_000 }).toEqual(['primary', 'standby']);
    // The standby's secret still admits it (a manual Connect on the standby PC).
    const again = await observer(second.ingest, replayLogon(replay, { key: KEY, groupCode: CODE, groupSecret: standbySecret }));
    expect(again.ack).toEqual({ type: 'authenticate', value: true, reason: 'reconnected' });
    again.socket.close();

    // The primary goes silent; the standby streams the rest and takes over.
    const fe = await overlay(second.broadcast, CODE);
    for (let i = HALF; i < records.length; i++) {
      s.emit('obs_data', standbyCopy(records[i]));
      if (i % 50 === 0) await yieldToIo();
    }
    await fe.waitFor((f) => f.roundPhase === 'game_end', 60_000);
    expect(timeless(fe.raw[fe.raw.length - 1])).toEqual(timeless(reference));
    expect(await second.metric('ods_observer_failovers_total', { cause: 'primary_silent' })).toBe(1);
  }, 120_000);
});
