// Match records and webhook dead letters on Redis (events/record-store.ts; docs/events.md, "What is
// kept where"): two nodes share one redis-server. The recorded match is played on node A to its end,
// with a webhook endpoint nobody listens at (its events are dead-lettered after
// WEBHOOK_RETRY_FOR_MS). Node B's admin API lists the record, returns it as JSON and as CSV (equal to
// the totals computed from the recording's rows) and lists node A's dead letters (the dashboard's
// Webhooks panel too); after node A is
// killed (SIGKILL), it still does. Without the admin token, each route answers 401; with Redis
// gone, 503 { error }.
import net from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeRecord } from '../../../src/main/events/adapters/redis/record-store.js';
import type { DeadLetter, MatchRecord, RecordSummary } from '../../../src/main/events/record-store.js';
import { AdminApi, TEST_ADMIN_TOKEN } from '../../helpers/admin.js';
import { closeAll, connectObserver, connected, logon } from '../../helpers/clients.js';
import { CLUSTER_KEY, startCluster, type Cluster } from '../../helpers/cluster.js';
import { recordedMatch, replayLogon, sendRecords } from '../../helpers/recorded.js';
import { parseCsv, recordingFacts } from '../../helpers/recorded-events.js';

const replay = recordedMatch();
const facts = recordingFacts(replay);
const CODE = 'RECRDS';
const SECRET = `whsec_${Buffer.from('records-cluster-secret-24b!!').toString('base64')}`;

let cluster: Cluster | undefined;
afterAll(async () => {
  closeAll();
  await cluster?.stop();
});

/** A loopback port nothing listens at (every webhook attempt is refused at once). */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Node B's view, through its admin API only: the record's summary, the record, its two CSVs, the dead letters. */
async function readThrough(api: AdminApi) {
  const list = await (await api.request('GET', `/admin/records?groupCode=${CODE}`)).json() as { records: RecordSummary[] };
  expect(list.records).toHaveLength(1);
  const key = encodeURIComponent(list.records[0].matchKey);
  const res = await api.request('GET', `/admin/records/${key}`);
  expect(res.status).toBe(200);
  const record = await res.json() as MatchRecord;
  const roundsCsv = parseCsv(await (await api.request('GET', `/admin/records/${key}/rounds.csv`)).text());
  const playersCsv = parseCsv(await (await api.request('GET', `/admin/records/${key}/players.csv`)).text());
  const { deadLetters } = await (await api.request('GET', '/admin/webhooks')).json() as { deadLetters: DeadLetter[] };
  return { summary: list.records[0], record, roundsCsv, playersCsv, deadLetters };
}

/** The record and its CSVs say what the recording's rows say (recorded-events.ts). */
function expectRecordOfRecording({ record, roundsCsv, playersCsv }: Awaited<ReturnType<typeof readThrough>>): void {
  expect(record.groupCode).toBe(CODE);
  expect(record.score).toEqual(facts.finalScore);
  expect(record.rounds.map((r) => r.score)).toEqual(facts.rounds.map((r) => r.score));
  expect(record.players).toHaveLength(10);
  for (const p of record.players) expect({ kills: p.kills, deaths: p.deaths, assists: p.assists }).toEqual(facts.totals.get(p.name));
  expect(roundsCsv).toHaveLength(facts.rounds.length * 10);
  for (const row of roundsCsv) {
    const f = facts.perRound.get(`${row.round}|${row.name}`) ?? { kills: 0, deaths: 0, headshots: 0, firstBloods: 0 };
    expect({ kills: +row.kills, deaths: +row.deaths, headshots: +row.headshots, firstBloods: +row.firstBloods }).toEqual(f);
  }
  expect(playersCsv).toHaveLength(10);
  for (const row of playersCsv) expect({ kills: +row.kills, deaths: +row.deaths, assists: +row.assists }).toEqual(facts.totals.get(row.name));
}

describe('match records and dead letters on Redis', () => {
  it('a match that ended on node A: node B lists and returns its record (JSON, CSV) and its dead letters, also after node A is killed', async () => {
    cluster = await startCluster(2, {
      ADMIN_TOKEN: TEST_ADMIN_TOKEN, TRUST_REPLAY_TIMESTAMPS: 'true', METRICS_ENABLED: 'false',
      INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000',
      WEBHOOKS: JSON.stringify([{ id: 'gone', url: `http://127.0.0.1:${await deadPort()}/hook`, secret: SECRET }]),
      WEBHOOK_RETRY_FOR_MS: '1000',
    });
    const [a, b] = cluster.nodes;
    const apiB = new AdminApi(b.urls.rest);
    const observer = connectObserver(a.urls.ingest);
    await connected(observer);
    expect((await logon(observer, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: CODE }))).ack.value).toBe(true);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE });

    // Node B never ran the match: what it lists is in Redis.
    await expect.poll(async () => (await (await apiB.request('GET', '/admin/records')).json() as { records: RecordSummary[] }).records.map((r) => r.groupCode), { timeout: 90_000 }).toContain(CODE);
    await expect.poll(async () => (await readThrough(apiB)).deadLetters.filter((d) => d.groupCode === CODE).length, { timeout: 90_000 }).toBeGreaterThan(0);
    const before = await readThrough(apiB);
    expectRecordOfRecording(before);
    expect(before.deadLetters.every((d) => d.endpointId === 'gone' && d.lastError.length > 0)).toBe(true);
    // The dashboard's Webhooks panel of node B (Basic, the token as password) shows node A's dead letters.
    const basic = `Basic ${Buffer.from(`admin:${apiB.token}`).toString('base64')}`;
    const panel = await (await fetch(`${b.urls.rest}/dashboard/webhooks`, { headers: { authorization: basic } })).json() as { deadLetters: DeadLetter[] };
    expect(panel.deadLetters.some((d) => d.groupCode === CODE)).toBe(true);
    // Node A answers the same.
    expect((await readThrough(new AdminApi(a.urls.rest))).record).toEqual(before.record);

    // What Redis holds of it: the record deflated, expiring within the retention (7 days by default).
    const redis = new Redis(cluster.redis.socketPath, { maxRetriesPerRequest: 1 });
    try {
      const stored = (await redis.hgetBuffer(`ods:rec:${before.summary.matchKey}`, 'r'))!;
      const json = decodeRecord(stored);
      expect(JSON.parse(json)).toEqual(before.record);
      console.log(`the recorded match's record: ${Buffer.byteLength(json)} bytes of JSON, ${stored.length} bytes in Redis`);
      expect(stored.length).toBeLessThan(Buffer.byteLength(json) / 2);
      expect(await redis.pttl(`ods:rec:${before.summary.matchKey}`)).toBeGreaterThan(604_800_000 - 600_000);
      // No secret is in what Redis keeps of records and dead letters.
      const kept = json + JSON.stringify(await redis.lrange('ods:deadletters', 0, -1));
      for (const secret of [SECRET, CLUSTER_KEY, TEST_ADMIN_TOKEN.split(':')[1]]) expect(kept).not.toContain(secret);
    } finally {
      redis.disconnect();
    }

    observer.close();
    a.proc.kill('SIGKILL');
    await a.exited;
    const after = await readThrough(apiB);
    expect(after.summary).toEqual(before.summary);
    expect(after.record).toEqual(before.record);
    expect(after.roundsCsv).toEqual(before.roundsCsv);
    expect(after.playersCsv).toEqual(before.playersCsv);
    // Node B may add its own (it claims the lost node's match and tries the endpoint again): the newest of before are there.
    expect(after.deadLetters).toEqual(expect.arrayContaining(before.deadLetters.slice(-10)));

    // Without the admin token (or with a wrong one), every route of records and dead letters answers 401.
    const key = encodeURIComponent(before.summary.matchKey);
    for (const path of ['/admin/records', `/admin/records/${key}`, `/admin/records/${key}/rounds.csv`, `/admin/records/${key}/players.csv`, '/admin/webhooks']) {
      expect((await fetch(`${b.urls.rest}${path}`)).status).toBe(401);
      expect((await new AdminApi(b.urls.rest, 'not-the-admin-token-0000').request('GET', path)).status).toBe(401);
    }
    expect((await apiB.request('GET', '/admin/records?limit=0')).status).toBe(400);
    expect((await apiB.request('GET', '/admin/records/NOPE-1')).status).toBe(404);

    // Redis gone: a clear 503 { error }, and the node goes on.
    await cluster.redis.stop();
    for (const path of ['/admin/records', `/admin/records/${key}`, `/admin/records/${key}/rounds.csv`, '/admin/webhooks']) {
      const res = await apiB.request('GET', path);
      expect(res.status).toBe(503);
      expect((await res.json() as { error: string }).error).toContain('records store');
    }
    expect((await fetch(`${b.urls.rest}/status`)).status).toBe(200);
  }, 240_000);
});
