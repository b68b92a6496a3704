// A venue network outage in the middle of the recorded match (issue 9; docs/client-contract.md 1.5):
// the observer is a real socket.io-client with the observer client's options (docs/client-contract.md 1.3:
// reconnection 1–5 s, polling then WebSocket, no logon after an automatic reconnection), connected
// through a TCP proxy the test runs and cuts (helpers/outage-proxy.ts: the client's connections
// are reset, its attempts refused, the service's side goes silent). The test keeps emitting the
// recorded match during the outage, so the client buffers them and sends the whole backlog at once
// when it is back. Under the service's real per-socket budget, the match must end exactly like a
// clean run of the same records in a fresh service (same final match_data frame, byte for byte),
// with nothing shed. Also: a backlog still waiting when the transport drops moves to the resumed socket,
// and one still waiting at shutdown is forwarded.
// The outage is the 30 s one of issue 9 at half its time (issue 36: no test waits out a real 30 s
// outage): 15 s against a heartbeat of 12.5 s + 10 s instead of the defaults' 25 s + 20 s, so that the
// service pings the held connection into the silence during the cut and closes it before or after
// the client is back, as under the defaults; the client's own backoff (1–5 s) is the real one, and
// the backlog is as large as the 30 s outage's (600 records, at 40 instead of 20 msg/s).
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../../src/main/base/config.js';
import { closeAll, connectObserver, overlay, logon } from '../../helpers/clients.js';
import { OutageProxy } from '../../helpers/outage-proxy.js';
import { playReplay, recordedMatch, replayLogon } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { webSocketOf } from '../../helpers/internals/socketio-client.js';
import { tcpOf } from '../../helpers/internals/ws.js';
import { atPace } from '../../helpers/waits.js';

const KEY = 'CATCHUP-KEY';
/** The heartbeat and the cut, at half the defaults' 25 s + 20 s and the issue's 30 s. */
const PING_INTERVAL_MS = 12_500;
const PING_TIMEOUT_MS = 10_000;
const OUTAGE_MS = 15_000;
/** The issue's outage: the backlog holds at least the recording's busiest stretch of this length. */
const ISSUE_OUTAGE_MS = 30_000;
/** Records sent before the outage; the outage then covers the busiest stretch of the match (records ~1100–1600). */
const BEFORE = 800;
/** Send pace: during the outage one record per 25 ms (600 records in the 15 s, as 20 msg/s would in 30 s: several times the recording's busiest 30 s); outside it at most ~140 msg/s, under the budget. */
const OUTAGE_GAP_MS = 25;
const FAST_GAP_MS = 7;

const replay = recordedMatch();
const code = replay.header.groupCode;

/** The most records of the recording inside any window of `ms` (by their recorded timestamps). */
function busiest(ms: number): number {
  const ts = replay.records.map((r) => Number(r.timestamp));
  let most = 0;
  for (let i = 0, j = 0; i < ts.length; i++) {
    while (ts[i] - ts[j] >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

/** Events of this name the service received on its ingestion listener (/metrics). */
const received = (service: TestService, event: string) => service.metric('ods_messages_received_total', { event });

let svc: TestService;
let clean: TestService;
beforeAll(async () => {
  // The real per-socket budget (the defaults), and the recorded clock so that frames compare.
  svc = await startTestService({
    AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true',
    INGEST_RATE_PER_SOCKET: String(SETTINGS.INGEST_RATE_PER_SOCKET.def), INGEST_BURST_PER_SOCKET: String(SETTINGS.INGEST_BURST_PER_SOCKET.def),
    PING_INTERVAL_MS: String(PING_INTERVAL_MS), PING_TIMEOUT_MS: String(PING_TIMEOUT_MS),
  });
  clean = await startTestService({ AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true' });
});
afterAll(async () => {
  closeAll();
  await svc?.close();
  await clean?.close();
});

/** The clean run: the same records, the same group code, a fresh service, no proxy. Resolves with its final frame. */
async function cleanFinalFrame(): Promise<string> {
  const fe = await overlay(clean.broadcast, code);
  const run = await playReplay(replay, { url: clean.ingest, key: KEY, pace: 'instant' });
  await fe.waitFor((f) => f.roundPhase === 'game_end', 30_000);
  await expect.poll(() => clean.metric('ods_live_matches'), { timeout: 10_000 }).toBe(0);
  run.socket.close();
  return fe.raw[fe.raw.length - 1];
}

describe('an observer back from a network outage (the 30 s outage, at half its time and heartbeat)', () => {
  it('has its whole backlog applied, in order, once: the match ends exactly like a clean run, nothing shed, no second logon', async () => {
    const proxy = new OutageProxy(svc.ports.ingest);
    const url = await proxy.start();
    const fe = await overlay(svc.broadcast, code);
    // The observer client's options (docs/client-contract.md 1.3).
    const s = connectObserver(url);
    const outgoing: string[] = [];
    s.onAnyOutgoing((event: string) => outgoing.push(event));
    let reconnects = 0;
    s.io.on('reconnect', () => reconnects++);
    try {
      expect((await logon(s, 'obs_logon', replayLogon(replay, { key: KEY }))).ack.value).toBe(true);
      await expect.poll(() => s.io.engine.transport.name, { timeout: 10_000 }).toBe('websocket');

      let sent = 0;
      const sendOne = () => s.emit('obs_data', JSON.stringify(replay.records[sent++]));
      await atPace(FAST_GAP_MS, () => sent < BEFORE, sendOne);
      // The network goes at a quiet moment: what a client wrote into a connection that dies is
      // lost in a real outage too (it is not in socket.io-client's buffer), and is not the subject.
      await expect.poll(() => received(svc, 'obs_data'), { timeout: 10_000 }).toBe(sent);
      const down = new Promise<string>((resolve) => s.once('disconnect', (reason: string) => resolve(reason)));
      proxy.cut();
      expect(await down).toBe('transport close');

      // The outage: the game goes on, the client buffers.
      const cleanRun = cleanFinalFrame(); // meanwhile, the reference run in the other service
      const cutAt = Date.now();
      const firstBuffered = sent;
      await atPace(OUTAGE_GAP_MS, () => Date.now() - cutAt < OUTAGE_MS, sendOne); // the outage lasts OUTAGE_MS of the game
      const duringOutage = sent - firstBuffered;
      expect(duringOutage).toBeGreaterThanOrEqual(busiest(ISSUE_OUTAGE_MS)); // at least the recording's busiest 30 s
      expect(proxy.refused).toBeGreaterThan(0); // the client tried to reconnect and was refused
      expect(s.connected).toBe(false);
      proxy.restore();
      // Until the client is back by itself (its backoff is up to 5 s × 1.5), the game goes on.
      await atPace(OUTAGE_GAP_MS, () => reconnects === 0, sendOne);
      const backlog = sent - firstBuffered;
      // How long the service takes to forward what waited (figures for docs/reliability.md), and the
      // most that waited at once (ods_ingest_backlog_messages, sampled).
      const backAt = Date.now();
      let caughtUpMs = -1;
      let mostWaiting = 0;
      let scraping = false;
      const watch = setInterval(() => {
        if (scraping || caughtUpMs >= 0) return;
        scraping = true;
        void svc.metrics().then((m) => {
          const waiting = m.value('ods_ingest_backlog_messages');
          mostWaiting = Math.max(mostWaiting, waiting);
          if (caughtUpMs < 0 && m.value('ods_messages_queued_total') > 0 && waiting === 0) caughtUpMs = Date.now() - backAt;
        }).finally(() => { scraping = false; });
      }, 50);
      await atPace(FAST_GAP_MS, () => sent < replay.records.length, sendOne);

      await fe.waitFor((f) => f.roundPhase === 'game_end', 60_000);
      await expect.poll(() => svc.metric('ods_live_matches'), { timeout: 10_000 }).toBe(0);
      clearInterval(watch);
      const m = await svc.metrics();
      const shed = m.value('ods_messages_dropped_total', { reason: 'rate_limited' });
      console.log(`outage ${OUTAGE_MS} ms: ${duringOutage} records emitted during it, ${backlog} buffered until the reconnection; rate_limited ${shed}`);
      // The match ends exactly like the clean run (parsed first, for a readable difference; then byte for byte).
      const final = fe.raw[fe.raw.length - 1];
      const reference = await cleanRun;
      expect(JSON.parse(final)).toEqual(JSON.parse(reference));
      expect(final).toBe(reference);
      expect(shed).toBe(0);
      expect(m.value('ods_messages_received_total', { event: 'obs_data' })).toBe(replay.records.length); // every record arrived, once
      expect(reconnects).toBe(1);
      expect(outgoing.filter((e) => e === 'obs_logon')).toHaveLength(1);
      expect(m.value('ods_messages_received_total', { event: 'obs_logon' })).toBe(1);
      const resumed = svc.logs.map((l) => JSON.parse(l) as { msg?: string; groupCode?: string }).filter((j) => j.msg === 'session resumed' && j.groupCode === code);
      expect(resumed).toHaveLength(1);
      console.log(`backlog: ${m.value('ods_messages_queued_total')} waited, at least ${mostWaiting} at once (sampled), none left ${caughtUpMs} ms after the reconnection`);
      expect(mostWaiting).toBeGreaterThan(SETTINGS.INGEST_BURST_PER_SOCKET.def); // the catch-up was more than the bucket holds
    } finally {
      s.close();
      await proxy.close();
    }
  }, 150_000);
});

describe('a backlog still waiting when the transport drops', () => {
  it('moves to the resumed socket and is applied before what the client sends afterwards, in order, nothing shed', async () => {
    // A slow budget (50/s, burst 10) keeps 150 messages waiting for ~3 s: long enough to drop the transport meanwhile.
    const slow = await startTestService({ AUTH_KEY: KEY, INGEST_RATE_PER_SOCKET: '50', INGEST_BURST_PER_SOCKET: '10' });
    const s = io(slow.ingest, { forceNew: true, reconnection: true, reconnectionDelay: 200, reconnectionDelayMax: 400, rejectUnauthorized: false });
    try {
      const group = 'BKLG01';
      const fe = await overlay(slow.broadcast, group);
      expect((await logon(s, 'obs_logon', replayLogon(replay, { key: KEY, groupCode: group }))).ack.value).toBe(true);
      const row = replay.records.find((r) => r.type === 'scoreboard')!;
      const playerId = (row.data as { playerId: string }).playerId;
      const moneyOf = (f: Record<string, unknown>) => (f.teams as { players: { riotId: string; money: number }[] }[]).flatMap((t) => t.players).find((p) => p.riotId === playerId)?.money;
      const roster = replay.records.find((r) => r.type === 'roster' && (r.data as { playerId: string }).playerId === playerId)!;
      s.emit('obs_data', JSON.stringify({ ...roster, groupCode: group }));
      const money = (m: number) => JSON.stringify({ ...row, groupCode: group, data: { ...(row.data as object), money: m } });
      await fe.waitFor((f) => moneyOf(f) !== undefined);
      await expect.poll(() => s.io.engine.transport.name).toBe('websocket');

      for (let m = 1; m <= 150; m++) s.emit('obs_data', money(m));
      await expect.poll(() => received(slow, 'obs_data'), { timeout: 10_000 }).toBe(151);
      const waitingAtDrop = await slow.metric('ods_ingest_backlog_messages');
      expect(waitingAtDrop).toBeGreaterThan(50);
      // The network resets under the client; it reconnects by itself and sends more.
      const back = new Promise<void>((resolve) => s.io.once('reconnect', () => resolve()));
      tcpOf(webSocketOf(s)!).destroy();
      await back;
      for (let m = 151; m <= 160; m++) s.emit('obs_data', money(m));

      await fe.waitFor((f) => moneyOf(f) === 160, 20_000);
      const seen = fe.frames.map(moneyOf).filter((m): m is number => m !== undefined && m > 0);
      expect(seen).toEqual([...seen].sort((a, b) => a - b)); // never backwards: the old backlog went first
      expect(await slow.metric('ods_messages_dropped_total', { reason: 'rate_limited' })).toBe(0);
      const resumed = slow.logs.map((l) => JSON.parse(l) as { msg?: string; groupCode?: string; waiting?: number }).filter((j) => j.msg === 'session resumed' && j.groupCode === group);
      expect(resumed).toHaveLength(1);
      console.log(`transport dropped with ${waitingAtDrop} waiting; ${resumed[0].waiting} handed over to the resumed socket`);
      expect(resumed[0].waiting).toBeGreaterThan(0); // the handover happened
    } finally {
      s.close();
      await slow.close();
    }
  }, 60_000);
});

describe('a backlog still waiting at shutdown', () => {
  it('is forwarded before the matches are finished: the clients will not send it again', async () => {
    const slow = await startTestService({ AUTH_KEY: KEY, INGEST_RATE_PER_SOCKET: '10', INGEST_BURST_PER_SOCKET: '1' });
    const s = io(slow.ingest, { forceNew: true, reconnection: false, rejectUnauthorized: false });
    try {
      const group = 'BKLG02';
      const fe = await overlay(slow.broadcast, group);
      expect((await logon(s, 'obs_logon', replayLogon(replay, { key: KEY, groupCode: group }))).ack.value).toBe(true);
      const row = replay.records.find((r) => r.type === 'scoreboard')!;
      const playerId = (row.data as { playerId: string }).playerId;
      const roster = replay.records.find((r) => r.type === 'roster' && (r.data as { playerId: string }).playerId === playerId)!;
      const moneyOf = (f: Record<string, unknown>) => (f.teams as { players: { riotId: string; money: number }[] }[]).flatMap((t) => t.players).find((p) => p.riotId === playerId)?.money;
      s.emit('obs_data', JSON.stringify({ ...roster, groupCode: group }));
      await fe.waitFor((f) => moneyOf(f) !== undefined);
      for (let m = 1; m <= 50; m++) s.emit('obs_data', JSON.stringify({ ...row, groupCode: group, data: { ...(row.data as object), money: m } }));
      await expect.poll(() => received(slow, 'obs_data'), { timeout: 10_000 }).toBe(51);
      expect(await slow.metric('ods_ingest_backlog_messages')).toBeGreaterThan(30);
      expect(await slow.metric('ods_messages_dropped_total', { reason: 'rate_limited' })).toBe(0);
      await slow.shutdown();
      expect(moneyOf(fe.frames[fe.frames.length - 1])).toBe(50);
      // Nothing was shed during the shutdown either (/metrics is closed by now; a shed message is logged, once per socket).
      expect(slow.logged({ msg: 'ingestion message ignored', reason: 'rate_limited' })).toEqual([]);
    } finally {
      s.close();
      await slow.close();
    }
  }, 30_000);
});
