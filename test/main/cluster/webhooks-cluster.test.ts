// Webhook endpoints and dead letters on Redis (issue 35; docs/events.md, "What is kept where"): two
// nodes share one redis-server. An endpoint added through node A's admin API is kept in Redis and
// used by node B, which runs the recorded match (every delivery signed with the secret A gave once);
// a node started later has it too, and its removal there reaches the others. Its dead letters (the
// receiver answers 500 for a while, WEBHOOK_RETRY_FOR_MS=1000) are redelivered through node A's admin
// API (A never ran the match: the event is read from the shared outbox), without the token 401. The
// match's end meets a Redis that refuses every write (min-replicas-to-write with no replica): its
// record is not kept then, and is there once Redis takes writes again. No secret in any log line.
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import type { DeadLetter, MatchRecord, RecordSummary } from '../../../src/main/events/record-store.js';
import { AdminApi, TEST_ADMIN_TOKEN } from '../../helpers/admin.js';
import { closeAll, connectObserver, connected, logon } from '../../helpers/clients.js';
import { CLUSTER_KEY, logLines, startCluster, type Cluster } from '../../helpers/cluster.js';
import { recordedMatch, replayLogon, sendRecords } from '../../helpers/recorded.js';
import { recordingFacts } from '../../helpers/recorded-events.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const replay = recordedMatch();
const facts = recordingFacts(replay);
const CODE = 'WHCLUS';
const THIRD = Math.floor(replay.records.length / 3);

let cluster: Cluster | undefined;
let receiver: WebhookReceiver | undefined;
afterAll(async () => {
  closeAll();
  await cluster?.stop();
  await receiver?.close();
});

type Listed = { endpoints: { id: string; url: string; source: string }[]; deadLetters: (DeadLetter & { id: string })[] };
const listed = async (api: AdminApi) => await (await api.request('GET', '/admin/webhooks')).json() as Listed;

describe('webhook endpoints and dead letters on Redis', () => {
  it('an endpoint added on node A is used by node B and a later node; a dead letter is redelivered through another node; a record that met a Redis outage lands', async () => {
    let failing = false;
    receiver = await startReceiver(() => (failing ? 500 : 204));
    cluster = await startCluster(2, {
      ADMIN_TOKEN: TEST_ADMIN_TOKEN, TRUST_REPLAY_TIMESTAMPS: 'true', METRICS_ENABLED: 'false', LOG_LEVEL: 'debug',
      INGEST_RATE_PER_SOCKET: '1000000', INGEST_BURST_PER_SOCKET: '1000000', WEBHOOK_RETRY_FOR_MS: '1000',
      // Leases outlast the write outage below: the match stays on node B.
      REDIS_LEASE_TTL_MS: '30000',
    });
    const [a, b] = cluster.nodes;
    const apiA = new AdminApi(a.urls.rest);
    const apiB = new AdminApi(b.urls.rest);

    const add = (token: string) => fetch(`${a.urls.rest}/admin/webhooks`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'bracket', url: receiver!.url }),
    });
    expect((await add('not-the-admin-token-0000')).status).toBe(401);
    const made = await add(apiA.token);
    expect(made.status).toBe(201);
    const { secret } = await made.json() as { secret: string };
    expect(secret).toMatch(/^whsec_/);
    // Node B reads it from Redis within a second or so; no GET shows the secret.
    await expect.poll(async () => (await listed(apiB)).endpoints.map((e) => `${e.id} ${e.source}`)).toEqual(['bracket admin']);
    expect(JSON.stringify(await listed(apiB))).not.toContain(secret);

    // The match runs on node B: its events reach the receiver, signed with A's secret.
    const observer = connectObserver(b.urls.ingest);
    await connected(observer);
    expect((await logon(observer, 'obs_logon', replayLogon(replay, { key: CLUSTER_KEY, groupCode: CODE }))).ack.value).toBe(true);
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, to: THIRD });
    await receiver.waitFor((ev) => ev.some((e) => e.type === 'match_started'), 60_000);
    const wh = new Webhook(secret);
    for (const d of receiver.deliveries) expect((wh.verify(d.body, { 'webhook-id': d.id, 'webhook-timestamp': d.timestamp, 'webhook-signature': d.signature }) as { id: string }).id).toBe(d.id);

    // The receiver fails for a while: node B dead-letters what it could not deliver within 1 s.
    failing = true;
    await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, from: THIRD, to: 2 * THIRD });
    await expect.poll(async () => (await listed(apiA)).deadLetters.filter((d) => d.endpointId === 'bracket').length, { timeout: 60_000 }).toBeGreaterThan(0);
    failing = false;
    const letter = (await listed(apiA)).deadLetters.find((d) => d.endpointId === 'bracket')!;
    const path = `/admin/webhooks/dead-letters/${letter.id}/redeliver`;
    expect((await fetch(`${a.urls.rest}${path}`, { method: 'POST' })).status).toBe(401);
    expect((await new AdminApi(a.urls.rest, 'not-the-admin-token-0000').request('POST', path)).status).toBe(401);
    const before = receiver.deliveries.length;
    const res = await apiA.request('POST', path);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ redelivered: true, deadLetter: { id: letter.id, eventId: letter.eventId } });
    const again = receiver.deliveries.slice(before).find((d) => d.id === letter.eventId)!;
    expect((wh.verify(again.body, { 'webhook-id': again.id, 'webhook-timestamp': again.timestamp, 'webhook-signature': again.signature }) as { id: string }).id).toBe(letter.eventId);
    expect((await listed(apiB)).deadLetters.some((d) => d.endpointId === 'bracket' && d.eventId === letter.eventId)).toBe(false);
    expect((await apiA.request('POST', path)).status).toBe(404);

    // The match's end meets a Redis that refuses every write: the record is not kept then …
    await cluster.redis.command('CONFIG', 'SET', 'min-replicas-to-write', '1');
    try {
      await sendRecords(observer, replay, { pace: 'instant', groupCode: CODE, from: 2 * THIRD });
      await expect.poll(() => logLines(b, 'match record not kept yet: tried again until it lands').length, { timeout: 60_000 }).toBeGreaterThan(0);
      expect((await (await apiA.request('GET', `/admin/records?groupCode=${CODE}`)).json() as { records: unknown[] }).records).toEqual([]);
    } finally {
      await cluster.redis.command('CONFIG', 'SET', 'min-replicas-to-write', '0');
    }
    // … and is there once Redis takes writes again (node A answers from Redis).
    await expect.poll(async () => (await (await apiA.request('GET', `/admin/records?groupCode=${CODE}`)).json() as { records: RecordSummary[] }).records.length, { timeout: 60_000 }).toBe(1);
    const [summary] = (await (await apiA.request('GET', `/admin/records?groupCode=${CODE}`)).json() as { records: RecordSummary[] }).records;
    const record = await (await apiA.request('GET', `/admin/records/${encodeURIComponent(summary.matchKey)}`)).json() as MatchRecord;
    expect(record.score).toEqual(facts.finalScore);
    expect(record.rounds).toHaveLength(facts.rounds.length);
    expect(logLines(b, 'match record kept after a failed write').length).toBeGreaterThan(0);
    await receiver.waitFor((ev) => ev.some((e) => e.type === 'match_ended'), 90_000);
    observer.close();

    // A node started now has the endpoint (kept in Redis); removed there, it leaves the others.
    const c = await cluster.addNode();
    const apiC = new AdminApi(c.urls.rest);
    expect((await listed(apiC)).endpoints.map((e) => e.id)).toEqual(['bracket']);
    expect((await apiC.request('POST', '/admin/webhooks/bracket/remove')).status).toBe(200);
    await expect.poll(async () => (await listed(apiA)).endpoints.length).toBe(0);
    await expect.poll(async () => (await listed(apiB)).endpoints.length).toBe(0);

    for (const node of [a, b, c]) expect(node.out.some((l) => l.includes(secret))).toBe(false);
  }, 240_000);
});
