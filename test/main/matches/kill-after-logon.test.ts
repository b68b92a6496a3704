// A SIGKILL right after an observer's logon was acknowledged loses nothing (docs/reliability.md,
// "Losses found"): the service, as its own process with STATE_DIR, is killed the moment the ack
// arrives. SNAPSHOT_INTERVAL_MS is 10 minutes, so no asynchronous write (the match's snapshot, the
// session table) can have happened: only what the logon wrote synchronously is on disk. After the
// restart on the same ports the observer's client (the same socket.io-client object, no second
// logon) resumes its session by itself, the recorded match is played to its end, the overlay ends on
// an uninterrupted run's final frame, and the webhook receiver gets the whole match through match_ended.
import fs from 'node:fs';
import path from 'node:path';
import type { Socket } from 'socket.io-client';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll, connectObserver, lastFrame, logon, joinedOverlay, reconnectingOverlay } from '../../helpers/clients.js';
import { parseReplay } from '../../../src/playback/replay-file.js';
import { playReplay, recordedMatch, replayLogon, sendRecords } from '../../helpers/recorded.js';
import { expectWholeMatchDelivered, recordingFacts } from '../../helpers/recorded-events.js';
import { freePorts, tempDir } from '../../helpers/service.js';
import { spawnService, type ServiceProcess } from '../../helpers/service-process.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const replay = recordedMatch();
const facts = recordingFacts(replay);
const KEY = 'kill-after-logon-key-0123456789';
const CODE = 'KLOG01';
const REF = 'KLOGRF';
const SECRET = `whsec_${Buffer.from('kill-logon-secret-of-24-bytes!').toString('base64')}`;

const procs: ServiceProcess[] = [];
const sockets: Socket[] = [];
let receiver: WebhookReceiver | undefined;
afterAll(async () => {
  closeAll();
  for (const s of sockets) s.close();
  for (const p of procs) await p.stop('SIGKILL');
  await receiver?.close();
});

describe('a SIGKILL right after a logon (STATE_DIR)', () => {
  it('loses neither the match nor the session: the observer resumes by itself and the match goes on to its end', async () => {
    receiver = await startReceiver();
    const stateDir = path.join(tempDir(), 'state');
    const replayDir = path.join(tempDir(), 'replays');
    const [ingest, rest, broadcast] = await freePorts(3);
    const env = {
      AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', STATE_DIR: stateDir, METRICS_ENABLED: 'false', RECORD_REPLAYS: 'true', REPLAY_DIR: replayDir,
      // No snapshot round and no session-table write before the kill: only the logon's own writes.
      SNAPSHOT_INTERVAL_MS: '600000',
      INGEST_PORT: String(ingest), REST_PORT: String(rest), BROADCAST_PORT: String(broadcast),
      INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000',
      WEBHOOKS: JSON.stringify([{ id: 'rx', url: receiver.url, secret: SECRET }]),
    };
    const first = await spawnService(env);
    procs.push(first);
    const observer = connectObserver(first.urls.ingest, { reconnection: true });
    const acks: string[] = [];
    observer.on('obs_logon_ack', (a: string) => acks.push(a));
    const { ack } = await logon(observer, 'obs_logon', replayLogon(replay, { key: KEY, groupCode: CODE }));
    await first.stop('SIGKILL');
    expect(ack.value).toBe(true);

    // What the kill left: the logon's synchronous files, none of the asynchronous ones (so the
    // restart below cannot have resumed from a snapshot or the session table).
    const files = fs.readdirSync(stateDir);
    expect(files.filter((f) => f.startsWith('created-') && f.endsWith('.json'))).toHaveLength(1);
    expect(files.filter((f) => f.startsWith('match-'))).toEqual([]);
    expect(files).toContain('sessions-new.json');
    expect(files).not.toContain('sessions.json');
    for (const f of files.filter((n) => n.endsWith('.json'))) {
      expect(fs.statSync(path.join(stateDir, f)).mode & 0o777).toBe(0o600);
      const text = fs.readFileSync(path.join(stateDir, f), 'utf8');
      expect(text).not.toContain(ack.reason); // the group secret
      expect(text).not.toContain(KEY);
    }

    // A new process on the same ports: the match is there, created again from its logon.
    const second = await spawnService(env);
    procs.push(second);
    await expect.poll(() => second.out.some((l) => l.includes('match created again from its logon') && l.includes(CODE)), { timeout: 10_000 }).toBe(true);
    const watch = reconnectingOverlay(second.urls.broadcast, CODE);
    await expect.poll(() => watch.length, { timeout: 15_000 }).toBeGreaterThan(0);

    // The observer's client reconnects by itself and resumes its session, without a second logon.
    await expect.poll(() => observer.connected, { timeout: 20_000 }).toBe(true);
    await expect.poll(() => second.out.some((l) => l.includes('session resumed') && l.includes(CODE)), { timeout: 15_000 }).toBe(true);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE });
    await expect.poll(() => watch.length > 0 && lastFrame(watch).roundPhase === 'game_end', { timeout: 30_000 }).toBe(true);
    expect(acks).toHaveLength(1);
    expect(second.out.some((l) => l.includes('no_match'))).toBe(false);

    // The same final frame as an uninterrupted run of the recording on the same process.
    const refFrames = await joinedOverlay(second.urls.broadcast, REF);
    const ref = await playReplay(replay, { url: second.urls.ingest, key: KEY, pace: 'instant', groupCode: REF });
    sockets.push(ref.socket);
    await expect.poll(() => refFrames.length > 0 && lastFrame(refFrames).roundPhase === 'game_end', { timeout: 30_000 }).toBe(true);
    expect({ ...lastFrame(watch), groupCode: REF }).toEqual(lastFrame(refFrames));

    // The webhook receiver gets the whole match, numbered without a gap, through its match_ended.
    const ofCode = () => receiver!.unique().filter((e) => e.groupCode === CODE);
    await receiver.waitFor(() => ofCode().some((e) => e.type === 'match_ended'), 60_000);
    const events = ofCode();
    expect(new Set(events.map((e) => e.matchKey)).size).toBe(1);
    expect(events.at(-1)).toMatchObject({ type: 'match_ended', data: { reason: 'completed' } });
    expectWholeMatchDelivered(events, [], facts);

    // The match created again records on in the one replay file of its instance: every record sent.
    const recorded = () => fs.readdirSync(replayDir).filter((f) => f.startsWith(`Match_${CODE}_`));
    expect(recorded()).toHaveLength(1);
    await expect.poll(() => {
      try { return parseReplay(fs.readFileSync(path.join(replayDir, recorded()[0]), 'utf8')).records.length; } catch { return -1; }
    }, { timeout: 15_000 }).toBe(replay.records.length);
    observer.close();
    await second.stop('SIGKILL'); // done with: not left running through the next case
  }, 180_000);

  it('a journalled match that did not come back (no state file of it) has its observer sessions ended, logged at warn', async () => {
    const stateDir = path.join(tempDir(), 'state');
    const [ingest, rest, broadcast] = await freePorts(3);
    const env = {
      AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', STATE_DIR: stateDir, METRICS_ENABLED: 'false', SNAPSHOT_INTERVAL_MS: '600000',
      INGEST_PORT: String(ingest), REST_PORT: String(rest), BROADCAST_PORT: String(broadcast),
      INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000',
    };
    const first = await spawnService(env);
    procs.push(first);
    const observer = connectObserver(first.urls.ingest, { reconnection: true });
    const { ack } = await logon(observer, 'obs_logon', replayLogon(replay, { key: KEY, groupCode: 'KLOG02' }));
    expect(ack.value).toBe(true);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: 'KLOG02', to: Math.floor(replay.records.length / 4) });
    const journal = () => fs.readdirSync(path.join(stateDir, 'events')).filter((f) => f.startsWith('ev-'));
    await expect.poll(() => journal().length, { timeout: 20_000 }).toBe(1);
    await first.stop('SIGKILL');
    // A state directory without the match's state (an earlier version's, or a file that could not
    // be written or read), with its session and its journalled events.
    for (const f of fs.readdirSync(stateDir).filter((n) => n.startsWith('match-') || n.startsWith('created-'))) fs.rmSync(path.join(stateDir, f));
    expect(fs.readdirSync(stateDir)).toContain('sessions-new.json');

    const second = await spawnService(env);
    procs.push(second);
    const warned = () => second.out.some((l) => l.includes('"level":40') && l.includes('match lost in the restart') && l.includes('KLOG02'));
    // Logged while the process starts, through pino's worker-thread transport (it can come after the banner): a generous
    // deadline (10 s fell short once beside two CPU hogs in a full suite run).
    await expect.poll(warned, { timeout: 30_000 }).toBe(true);
    // The client reconnects by itself, but no session is resumed into a match the process does not have.
    await expect.poll(() => observer.connected, { timeout: 20_000 }).toBe(true);
    observer.emit('obs_data', JSON.stringify(replay.records[0]));
    await expect.poll(() => second.out.some((l) => l.includes('ingestion message ignored') && l.includes('unauthenticated')), { timeout: 15_000 }).toBe(true);
    expect(second.out.some((l) => l.includes('session resumed'))).toBe(false);
    expect(second.out.some((l) => l.includes('no_match'))).toBe(false);
    observer.close();
  }, 120_000);
});
