// A SIGKILL in the middle of a match loses none of what the service had applied (docs/reliability.md,
// "The input log"; issue 35): the service, as its own process with STATE_DIR, is killed once it has
// applied the first half of the recorded match, with SNAPSHOT_INTERVAL_MS at 10 minutes, so the match
// has no snapshot at all: its state after the logon lives only in the input log. After the restart
// on the same ports the match is created again from its logon and given every logged input again;
// the observer's client resumes by itself and plays the rest. The overlay ends on an uninterrupted
// run's final frame, and the webhook receiver gets the same events and the same match record as the
// uninterrupted run's. With INPUT_LOG=false the same run loses the first half (the second case).
import fs from 'node:fs';
import path from 'node:path';
import type { Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, connectObserver, lastFrame, logon, joinedOverlay, reconnectingOverlay } from '../../helpers/clients.js';
import { parseReplay } from '../../../src/playback/replay-file.js';
import { playReplay, recordedMatch, replayLogon, sendRecords } from '../../helpers/recorded.js';
import { freePorts, tempDir } from '../../helpers/service.js';
import { spawnService, type ServiceProcess } from '../../helpers/service-process.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const replay = recordedMatch();
const KEY = 'input-log-kill-key-0123456789';
const SECRET = `whsec_${Buffer.from('input-log-kill-secret-24-byte!').toString('base64')}`;
/** Where the kill strikes: after this many records (about round 10 of 19). */
const HALF = Math.floor(replay.records.length / 2);

const procs: ServiceProcess[] = [];
const sockets: Socket[] = [];
const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  closeAll();
  for (const s of sockets) s.close();
  for (const p of procs) await p.stop('SIGKILL');
  for (const r of receivers) await r.close();
});

interface Received { type: string; round?: number; time?: number; groupCode: string; matchKey: string; data: Record<string, unknown> }

/** A match's game events as compared across runs: type, round, time and data, the code, key and wall-clock times left out. */
function comparable(events: Received[], code: string): string[] {
  const key = events[0]?.matchKey ?? '';
  return events.filter((e) => !e.type.startsWith('observer_')).map((e) => JSON.stringify(
    { type: e.type, round: e.round, time: e.type === 'match_created' ? undefined : e.time, data: e.data },
    (k, v) => (k === 'storedAt' || k === 'startedAt' ? undefined : v),
  ).replaceAll(key, '<key>').replaceAll(code, '<code>'));
}

/** The group code of the uninterrupted reference run. */
const REF = 'KINPRF';
let reference: { final: Record<string, unknown>; events: string[] } | undefined;

/** Plays the first half, kills the service once it applied it, restarts it, plays the rest; the match's events and final frame, and an uninterrupted run's. */
async function killedHalfway(inputLog: boolean, code: string) {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const stateDir = path.join(tempDir(), 'state');
  const replayDir = path.join(tempDir(), 'replays');
  const [ingest, rest, broadcast] = await freePorts(3);
  const env = {
    AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', STATE_DIR: stateDir, METRICS_ENABLED: 'false', RECORD_REPLAYS: 'true', REPLAY_DIR: replayDir,
    INPUT_LOG: String(inputLog),
    // No snapshot before the kill: the match's state after its logon is only in the input log.
    SNAPSHOT_INTERVAL_MS: '600000',
    INGEST_PORT: String(ingest), REST_PORT: String(rest), BROADCAST_PORT: String(broadcast),
    INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000',
    WEBHOOKS: JSON.stringify([{ id: 'rx', url: receiver.url, secret: SECRET }]),
  };
  const first = await spawnService(env);
  procs.push(first);
  const observer = connectObserver(first.urls.ingest, { reconnection: true });
  const { ack } = await logon(observer, 'obs_logon', replayLogon(replay, { key: KEY, groupCode: code }));
  expect(ack.value).toBe(true);
  await sendRecords(observer, replay, { pace: 'instant', groupCode: code, to: HALF });
  // Applied by the shard (its replay file has every record: the file lags what the shard applied).
  const recorded = () => fs.readdirSync(replayDir).filter((f) => f.startsWith(`Match_${code}_`));
  await expect.poll(() => {
    try { return parseReplay(fs.readFileSync(path.join(replayDir, recorded()[0]), 'utf8')).records.length; } catch { return -1; }
  }, { timeout: 30_000 }).toBe(HALF);
  await first.stop('SIGKILL');
  expect(fs.readdirSync(stateDir).filter((f) => f.startsWith('match-'))).toEqual([]); // no snapshot: not what brings it back

  const second = await spawnService(env);
  procs.push(second);
  const watch = reconnectingOverlay(second.urls.broadcast, code);
  const ofCode = (c: string) => (receiver.unique() as unknown as Received[]).filter((e) => e.groupCode === c);
  await expect.poll(() => observer.connected, { timeout: 20_000 }).toBe(true);
  await expect.poll(() => second.out.some((l) => l.includes('session resumed') && l.includes(code)), { timeout: 15_000 }).toBe(true);
  await sendRecords(observer, replay, { pace: 'instant', groupCode: code, from: HALF });
  await expect.poll(() => watch.length > 0 && lastFrame(watch).roundPhase === 'game_end', { timeout: 30_000 }).toBe(true);

  // An uninterrupted run of the whole recording on the same kind of process: the file's one
  // reference run, played on the first restarted process (the second case compares with it too).
  if (!reference) {
    const refFrames = await joinedOverlay(second.urls.broadcast, REF);
    const refRun = await playReplay(replay, { url: second.urls.ingest, key: KEY, pace: 'instant', groupCode: REF });
    sockets.push(refRun.socket);
    await expect.poll(() => refFrames.length > 0 && lastFrame(refFrames).roundPhase === 'game_end', { timeout: 30_000 }).toBe(true);
    await receiver.waitFor(() => ofCode(REF).some((e) => e.type === 'match_ended'), 60_000);
    reference = { final: lastFrame(refFrames), events: comparable(ofCode(REF), REF) };
  }
  await receiver.waitFor(() => ofCode(code).some((e) => e.type === 'match_ended'), 60_000);
  observer.close();
  const out = [...second.out];
  await second.stop('SIGKILL'); // done with: not left running through the next case
  return { out, final: { ...lastFrame(watch), groupCode: REF }, refFinal: reference.final, events: comparable(ofCode(code), code), refEvents: reference.events };
}

describe('a SIGKILL in the middle of a match (STATE_DIR, no snapshot yet)', () => {
  it('loses nothing the service had applied: the input log gives it all again, and the events and record equal an uninterrupted run\'s', async () => {
    const run = await killedHalfway(true, 'KINP01');
    expect(run.out.some((l) => l.includes('inputs after the snapshot applied again from the input log') && l.includes('KINP01'))).toBe(true);
    expect(run.final).toEqual(run.refFinal);
    expect(run.events).toEqual(run.refEvents); // match_ended's record among them
    expect(run.events.some((e) => e.includes('"type":"match_ended"'))).toBe(true);
  }, 240_000);

  it('without it (INPUT_LOG=false), the first half is lost: what the test above checks is the input log\'s doing', async () => {
    const run = await killedHalfway(false, 'KINP02');
    expect(run.final).not.toEqual(run.refFinal);
    expect(run.events).not.toEqual(run.refEvents);
  }, 240_000);
});
