// The last frame of a match that ends without game_end says it ended: operator force-end
// (POST /admin/matches/:code/end), inactivity removal (INACTIVITY_TIMEOUT_MS) and shutdown without
// STATE_DIR (the matches are completed with the backend and lost) each send a final frame with
// `isRunning: false` and every other member as it was (no invented `game_end` phase, no round
// record). Shutdown with STATE_DIR does not end the matches (they are resumed after the restart).
//
// A real overlay (socket.io-client on the broadcast port) watches the recorded match up to
// the start of round 4's combat phase (score 1–2) when the match ends.
import path from 'node:path';
import type { Socket } from 'socket.io-client';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { closeAll, overlay, serverDisconnect } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, tempDir, type TestService } from '../../helpers/service.js';

const replay = recordedMatch();

/** Records up to and including round 4's `round_info` combat (after round 3: left 1 – right 2). */
const ROUND_4_COMBAT = replay.records.findIndex((r) => r.type === 'round_info' && (r.data as { roundNumber: number; roundPhase: string }).roundNumber === 4
  && (r.data as { roundPhase: string }).roundPhase === 'combat');
const AUTH_KEY = 'END-FRAME-KEY';
const ADMIN = 'end-frame-admin-token-7c1e';

type Frame = Record<string, unknown> & { isRunning: boolean; roundPhase: string; roundNumber: number; teams: Array<{ roundsWon: number }> };
type Watcher = Awaited<ReturnType<typeof overlay>>;

const services: TestService[] = [];
const observers: Socket[] = [];
afterEach(() => {
  for (const s of observers.splice(0)) s.close();
  closeAll();
});
afterAll(async () => {
  for (const svc of services) await svc.close();
});

async function service(env: Record<string, string> = {}): Promise<TestService> {
  const svc = await startTestService({ AUTH_KEY, ...env });
  services.push(svc);
  return svc;
}

/** An overlay watching `code` while an observer plays the recorded match into round 4's combat. */
async function liveInCombat(svc: TestService, code: string): Promise<{ fe: Watcher; observer: Socket; combatAt: number }> {
  const fe = await overlay(svc.broadcast, code);
  const { socket: observer, ack } = await replayObserver(svc.ingest, replay, { key: AUTH_KEY, groupCode: code });
  observers.push(observer);
  expect(ack.value).toBe(true);
  await sendRecords(observer, replay, { pace: 'instant', groupCode: code, to: ROUND_4_COMBAT + 1 });
  const combat = await fe.waitFor((f) => f.roundNumber === 4 && f.roundPhase === 'combat', 15_000) as Frame;
  expect(combat.isRunning).toBe(true);
  expect(combat.teams.map((t) => t.roundsWon)).toEqual([1, 2]);
  return { fe, observer, combatAt: fe.frames.indexOf(combat) };
}

/** The first frame after round 4's combat began that says the match is not running. */
const endedFrame = (w: { fe: Watcher; combatAt: number }): Promise<Frame> =>
  w.fe.waitFor((f) => w.fe.frames.indexOf(f) > w.combatAt && f.isRunning === false, 15_000) as Promise<Frame>;

/** The final frame is the frame before it with isRunning false, the same state otherwise (serverTime aside). */
function expectEndedAsItWas(fe: Watcher, final: Frame): void {
  const i = fe.frames.indexOf(final);
  expect(i).toBe(fe.frames.length - 1); // the last frame the overlay got
  const before = fe.frames[i - 1] as Frame;
  expect(before.isRunning).toBe(true);
  expect(final.isRunning).toBe(false);
  expect(final.roundPhase).toBe('combat'); // no invented game_end phase
  expect(final.roundNumber).toBe(4);
  expect(final.teams.map((t) => t.roundsWon)).toEqual([1, 2]);
  const { serverTime: _t1, ...restFinal } = final;
  const { serverTime: _t0, ...restBefore } = before;
  expect(restFinal).toEqual({ ...restBefore, isRunning: false }); // round records and all else unchanged
}

describe('a match that ends without game_end: its last frame says isRunning false', () => {
  it('operator force-end (POST /admin/matches/:code/end)', async () => {
    const svc = await service({ ADMIN_TOKEN: ADMIN });
    const code = 'ENDADM';
    const live = await liveInCombat(svc, code);
    const gone = serverDisconnect(live.observer, 15_000);
    const res = await fetch(`${svc.rest}/admin/matches/${code}/end`, { method: 'POST', headers: { Authorization: `Bearer ${ADMIN}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ groupCode: code, ended: true });
    const final = await endedFrame(live);
    expect(await gone).toBe('io server disconnect');
    expect(await svc.admin.has(code)).toBe(false);
    expectEndedAsItWas(live.fe, final);
  });

  it('inactivity removal (INACTIVITY_TIMEOUT_MS)', async () => {
    // 2.5 s, as in match-lifecycle.test.ts: the replay's frames keep the match active until then.
    const svc = await service({ INACTIVITY_TIMEOUT_MS: '2500' });
    const code = 'ENDIDL';
    const live = await liveInCombat(svc, code);
    const gone = serverDisconnect(live.observer, 20_000);
    const final = await endedFrame(live);
    expect(await gone).toBe('io server disconnect');
    expect(await svc.admin.has(code)).toBe(false);
    expect(svc.logs.some((l) => l.includes('"match removed"') && l.includes('"inactive"') && l.includes(code))).toBe(true);
    expectEndedAsItWas(live.fe, final);
  });

  it('shutdown without STATE_DIR (matches completed and lost)', async () => {
    const svc = await service();
    const code = 'ENDSHT';
    const live = await liveInCombat(svc, code);
    const closed = serverDisconnect(live.fe.socket, 20_000);
    await svc.shutdown();
    await closed; // the overlays' sockets close last, after the final frames
    const final = await endedFrame(live);
    expectEndedAsItWas(live.fe, final);
  });

  it('not at shutdown with STATE_DIR: the match goes on after the restart, its last frame still running', async () => {
    const svc = await service({ STATE_DIR: path.join(tempDir(), 'state') });
    const code = 'ENDKEP';
    const live = await liveInCombat(svc, code);
    const closed = serverDisconnect(live.fe.socket, 20_000);
    await svc.shutdown();
    await closed;
    const last = live.fe.frames.at(-1) as Frame;
    expect(last.isRunning).toBe(true);
    expect(last.roundPhase).toBe('combat');
    expect(live.fe.frames.slice(live.combatAt).every((f) => f.isRunning === true)).toBe(true);
  });
});
