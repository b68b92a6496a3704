// A standby observer in scale-out (docs/reliability.md, "A standby observer"): the primary observer
// on node A (which runs the match), the window armed through node B's admin API, the standby
// connected to node B. The standby's data reaches the owner through its inbox, marked as the
// standby's and held there; when the primary goes silent the owner fails over, and the match ends
// on the final frame of a clean single-observer run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminApi, TEST_ADMIN_TOKEN } from '../../helpers/admin.js';
import { closeAll, connectObserver, overlay, logon, observer } from '../../helpers/clients.js';
import { CLUSTER_KEY, logLines, startCluster, type Cluster } from '../../helpers/cluster.js';
import { scrapeMetrics } from '../../helpers/metrics.js';
import { playReplay, recordedMatch, replayLogon } from '../../helpers/recorded.js';
import { frameWithout, sendBothAtOnce, streamPair } from '../../helpers/standby.js';

const replay = recordedMatch();
const THRESHOLD_MS = 3000;
let cluster: Cluster;

beforeAll(async () => {
  cluster = await startCluster(2, { TRUST_REPLAY_TIMESTAMPS: 'true', ADMIN_TOKEN: TEST_ADMIN_TOKEN, INGEST_RATE_PER_SOCKET: '1000000' });
}, 60_000);
afterAll(async () => {
  closeAll();
  await cluster?.stop();
});

const timeless = (raw: string) => frameWithout(raw, 'serverTime', 'groupCode');

describe('a standby observer on another node than the owner', () => {
  it('is admitted through the shared window, held on the owner, and takes over when the primary goes silent', async () => {
    const [a, b] = cluster.nodes;
    const adminB = new AdminApi(b.urls.rest);
    // The reference: one observer, the whole recording.
    const refFe = await overlay(a.urls.broadcast, 'CSBREF');
    const ref = await playReplay(replay, { url: a.urls.ingest, key: CLUSTER_KEY, groupCode: 'CSBREF', pace: 'instant' });
    await refFe.waitFor((f) => f.roundPhase === 'game_end', 60_000);
    const reference = refFe.raw[refFe.raw.length - 1];
    ref.socket.close();

    const code = 'CSBY01';
    const records = replay.records.map((r) => ({ ...r, groupCode: code }));
    const fe = await overlay(a.urls.broadcast, code);
    const p = connectObserver(a.urls.ingest);
    expect((await logon(p, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: code }))).ack.value).toBe(true);
    // Not armed: node B refuses a second observer as the specification says.
    expect((await observer(b.urls.ingest, replayLogon(replay, { key: CLUSTER_KEY, groupCode: code }))).ack.value).toBe(false);
    expect((await adminB.request('POST', `/admin/matches/${code}/standby`)).status).toBe(200);
    const s = connectObserver(b.urls.ingest);
    const sAck = (await logon(s, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: code, obsName: 'Standby#EUW' }))).ack;
    expect(sAck.value).toBe(true);
    expect(sAck.reason).toMatch(/^[A-Z0-9]{12,}$/);
    // The window admitted one, on whichever node: node A refuses the next.
    expect((await observer(a.urls.ingest, replayLogon(replay, { key: CLUSTER_KEY, groupCode: code }))).ack.value).toBe(false);

    let failoverAt = 0;
    const watch = setInterval(() => {
      if (!failoverAt) void scrapeMetrics(a.urls.metrics!).then((m) => { if (m.value('ods_observer_failovers_total') > 0 && !failoverAt) failoverAt = Date.now(); }).catch(() => undefined);
    }, 50);
    try {
      // The game's pace around the cut (100 records before it, until the failover after it); the match before at once, by both (issue 36).
      const receivedOnA = async () => (await scrapeMetrics(a.urls.metrics!)).value('ods_messages_received_total', { event: 'obs_data' });
      const base = await receivedOnA();
      await sendBothAtOnce(p, s, records, 1500, () => expect.poll(receivedOnA, { timeout: 30_000 }).toBeGreaterThanOrEqual(base + 1500));
      // The standby's copies reached the owner through node B and are held there. The owner kept the
      // primary's messages since the window was armed on node B (standby_watch), so they are no
      // evidence of the primary's silence: the primary holding back longer than a faster standby's
      // tolerance (1 s) and shorter than FAILOVER_SILENCE_MS keeps its seat. (The owner's relay
      // used to begin with the standby's first copy, counting the primary silent since 1970: a failover
      // here, and the standby's copies of kills already applied applied again.)
      const standbyOnOwner = async () => (await new AdminApi(a.urls.rest).match(code))?.links?.standby;
      await expect.poll(async () => (await standbyOnOwner())?.held ?? 0, { timeout: 30_000 }).toBeGreaterThanOrEqual(1500);
      await new Promise((resolve) => setTimeout(resolve, 1500)); // the primary's pause: the scenario, not a wait for state
      expect((await standbyOnOwner())?.failovers).toBe(0);
      const { cutAt } = await streamPair({ primary: p, standby: s, records, from: 1500, cut: 1600, stop: () => undefined, gapMs: 5, lagMs: 300, until: () => failoverAt > 0 });
      await fe.waitFor((f) => f.roundPhase === 'game_end', 60_000);
      await expect.poll(() => failoverAt, { timeout: 10_000 }).toBeGreaterThan(0);
      console.log(`scale-out: failover ${failoverAt - cutAt} ms after the primary's last message`);
      // Never before the primary's silence (a failover while it streams put the cut in the wrong place).
      const failovers = () => logLines(a, 'observer failover: the standby is the primary now').filter((l) => l.groupCode === code);
      await expect.poll(() => failovers().length).toBe(1); // through the node's output pipe
      const [last] = failovers();
      expect(last).toMatchObject({ groupCode: code, cause: 'primary_silent', how: 'cut' });
      expect((last.time as number) - cutAt).toBeGreaterThanOrEqual(THRESHOLD_MS);
      expect(failoverAt - cutAt).toBeLessThanOrEqual(THRESHOLD_MS + 1000);
      expect(timeless(fe.raw[fe.raw.length - 1])).toEqual(timeless(reference));
    } finally {
      clearInterval(watch);
      p.close();
      s.close();
    }
  }, 120_000);
});

describe('swapping by hand through another node', () => {
  it('asks the owner on the ControlBus: 202 there, the owner swaps', async () => {
    const [a, b] = cluster.nodes;
    const adminB = new AdminApi(b.urls.rest);
    const code = 'CSBY02';
    const records = replay.records.map((r) => ({ ...r, groupCode: code }));
    const p = connectObserver(a.urls.ingest);
    expect((await logon(p, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: code }))).ack.value).toBe(true);
    expect((await adminB.request('POST', `/admin/matches/${code}/standby`)).status).toBe(200);
    const s = connectObserver(b.urls.ingest);
    expect((await logon(s, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: code, obsName: 'Standby#EUW' }))).ack.value).toBe(true);
    try {
      await streamPair({ primary: p, standby: s, records: records.slice(0, 300), cut: 300, stop: () => undefined, gapMs: 2, lagMs: 100 });
      const before = (await scrapeMetrics(a.urls.metrics!)).value('ods_observer_failovers_total', { cause: 'manual' });
      // The owner's relay exists once the standby's data reached it.
      await expect.poll(async () => (await new AdminApi(a.urls.rest).match(code))?.links?.standby?.primary, { timeout: 10_000 }).toBe('group');
      const res = await adminB.request('POST', `/admin/matches/${code}/failover`);
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ groupCode: code, requested: true });
      await expect.poll(async () => (await scrapeMetrics(a.urls.metrics!)).value('ods_observer_failovers_total', { cause: 'manual' }), { timeout: 10_000 }).toBe(before + 1);
      expect((await new AdminApi(a.urls.rest).match(code))?.links?.standby?.primary).toBe('standby');
    } finally {
      p.close();
      s.close();
    }
  }, 60_000);
});
