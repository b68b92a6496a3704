// The outbox survives a SIGKILL (docs/events.md, "Delivery guarantees"): the service, as its own
// process with STATE_DIR, is killed mid-match while its webhook receiver is down (events waiting in
// the outbox on disk); after the restart, on the same ports, the observer resumes its session by
// itself, the match is played to its end, and the receiver gets every event once after
// de-duplication, in order, with nothing missing: the 19 rounds of the recording.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it, onTestFailed } from 'vitest';
import { closeAll, connectObserver, logon } from '../../helpers/clients.js';
import { recordedMatch, replayLogon, sendRecords } from '../../helpers/recorded.js';
import { expectWholeMatchDelivered, recordingFacts } from '../../helpers/recorded-events.js';
import { freePorts, tempDir } from '../../helpers/service.js';
import { spawnService, type ServiceProcess } from '../../helpers/service-process.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const replay = recordedMatch();
const facts = recordingFacts(replay);
const KEY = 'outbox-kill-key-0123456789';
const CODE = 'KILL01';
const SECRET = `whsec_${Buffer.from('kill-test-secret-of-24-bytes!!').toString('base64')}`;
const HALF = Math.floor(replay.records.length / 2);

const procs: ServiceProcess[] = [];
let receiver: WebhookReceiver | undefined;
afterAll(async () => {
  closeAll();
  for (const p of procs) await p.stop('SIGKILL');
  await receiver?.close();
});

/** A service on these ports with STATE_DIR (its outbox on disk), snapshots often, no ingestion budget in the way. */
function serviceEnv(stateDir: string, [ingest, rest, broadcast]: number[]): Record<string, string> {
  return {
    AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', STATE_DIR: stateDir, SNAPSHOT_INTERVAL_MS: '200', METRICS_ENABLED: 'false',
    INGEST_PORT: String(ingest), REST_PORT: String(rest), BROADCAST_PORT: String(broadcast), LOG_LEVEL: 'warn',
    INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000',
  };
}

/** The events the outbox holds on disk (STATE_DIR/events/ev-*), in the order written. */
function journalled(stateDir: string): Array<{ id: string; type: string }> {
  return fs.readdirSync(path.join(stateDir, 'events')).filter((f) => f.startsWith('ev-'))
    .flatMap((f) => fs.readFileSync(path.join(stateDir, 'events', f), 'utf8').trim().split('\n'))
    .map((l) => (JSON.parse(l) as { event: { id: string; type: string } }).event);
}

/**
 * The match-clock time of the last change in the match's STATE_DIR snapshot (0 when none yet): the
 * file a restart loads (`match-<digest>.json`), never the temporary file a write in progress fills
 * before its rename (`match-….json.<pid>.tmp`): a kill then finds that snapshot not there
 * (docs/reliability.md, "Losses found").
 */
function snapshotTime(stateDir: string): number {
  let t = 0;
  for (const f of fs.readdirSync(stateDir)) {
    if (!/^match-[0-9a-f]+\.json$/.test(f)) continue;
    const snapshot = (JSON.parse(fs.readFileSync(path.join(stateDir, f), 'utf8')) as { snapshot: string }).snapshot;
    t = Math.max(t, Number(/"lastChangeAt":(\d+)/.exec(snapshot)?.[1] ?? 0));
  }
  return t;
}

describe('the outbox on disk', () => {
  it('loses nothing when the service is killed (SIGKILL) mid-match', async () => {
    // On a failure: what each process logged above info, and what the receiver got (a loss under load is found there).
    onTestFailed(() => {
      for (const p of procs) console.log(p.out.filter((l) => /"level":(40|50|60)|stderr/.test(l)).join('\n'));
      console.log(JSON.stringify(receiver?.deliveries.map((d) => { const e = JSON.parse(d.body) as { seq: number; type: string }; return `${e.seq}:${e.type}`; })));
    });
    receiver = await startReceiver();
    const stateDir = path.join(tempDir(), 'state');
    const [ingest, rest, broadcast] = await freePorts(3);
    const env = { ...serviceEnv(stateDir, [ingest, rest, broadcast]), WEBHOOKS: JSON.stringify([{ id: 'rx', url: receiver.url, secret: SECRET }]) };
    const first = await spawnService(env);
    procs.push(first);
    const observer = connectObserver(first.urls.ingest, { reconnection: true });
    const { ack } = await logon(observer, 'obs_logon', replayLogon(replay, { key: KEY, groupCode: CODE }));
    expect(ack.value).toBe(true);

    // A first part is delivered; then the receiver goes down and the rest of the first half waits in the outbox.
    const quarter = Math.floor(HALF / 2);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, to: quarter });
    await receiver.waitFor((ev) => ev.some((e) => e.type === 'round_ended'), 30_000);
    await receiver.down();
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, from: quarter, to: HALF });
    // Killed once the match's snapshot holds the whole first half (what the kill cannot take back).
    await expect.poll(() => snapshotTime(stateDir), { timeout: 30_000 }).toBeGreaterThanOrEqual(replay.records[HALF - 1].timestamp as number);
    const journal = () => journalled(stateDir).map((e) => e.id);
    const beforeKill = journal();
    expect(beforeKill.length).toBeGreaterThan(receiver.unique().length);
    await first.stop('SIGKILL');

    await receiver.up();
    const second = await spawnService(env);
    procs.push(second);
    await expect.poll(() => observer.connected, { timeout: 20_000 }).toBe(true);
    await expect.poll(() => receiver!.unique().length, { timeout: 60_000 }).toBeGreaterThanOrEqual(beforeKill.length);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, from: HALF });
    await receiver.waitFor((ev) => ev.some((e) => e.type === 'match_ended'), 60_000);

    expectWholeMatchDelivered(receiver.unique(), beforeKill, facts);
    observer.close();
    await second.stop('SIGKILL'); // done with: not left running through the next case
  }, 240_000);
});

describe('an endpoint of the setting with no saved cursor', () => {
  it('gets every event still held after a restart, so a kill before its first cursor save skips nothing', async () => {
    const rx = await startReceiver();
    const stateDir = path.join(tempDir(), 'state');
    const [ingest, rest, broadcast] = await freePorts(3);
    const env = serviceEnv(stateDir, [ingest, rest, broadcast]);
    // No endpoint yet: the events are journalled, nobody's cursor is saved.
    const first = await spawnService(env);
    procs.push(first);
    const observer = connectObserver(first.urls.ingest, { reconnection: true });
    const { ack } = await logon(observer, 'obs_logon', replayLogon(replay, { key: KEY, groupCode: 'KILL02' }));
    expect(ack.value).toBe(true);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: 'KILL02', to: HALF });
    await expect.poll(() => journalled(stateDir).some((e) => e.type === 'round_ended'), { timeout: 30_000 }).toBe(true);
    const held = journalled(stateDir).map((e) => e.id);
    await first.stop('SIGKILL');

    // The endpoint appears with the restart (as after a kill within its first cursor save): it gets what was held.
    const second = await spawnService({ ...env, WEBHOOKS: JSON.stringify([{ id: 'late', url: rx.url, secret: SECRET }]) });
    procs.push(second);
    await rx.waitFor((ev) => held.every((id) => ev.some((e) => e.id === id)), 60_000);
    const got = rx.unique();
    expect(got.map((e) => e.seq).slice(0, held.length)).toEqual(held.map((_, i) => i + 1));
    observer.close();
    await rx.close();
  }, 120_000);
});
