// The output delay on Redis (README, "Output delay"; output-delay/output-delay-store.ts): two nodes on one
// real redis-server with one real webhook receiver. The delay is set through node B; node A, which
// runs the match, holds its events by it (each delivery's webhook-timestamp against the event's time:
// both node A's clock), in order; B's delayed feed of A's match answers like A's; 0 set through B
// releases A's waiting events long before the delay, as A reads the store again within a second.
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll } from '../../helpers/clients.js';
import { CLUSTER_KEY, startCluster, type Cluster } from '../../helpers/cluster.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { afterRoundSettled } from '../../helpers/recorded-events.js';
import { ROUND_SETTLE_MS } from '../../../src/workers/events/round-end.js';

const replay = recordedMatch();
const CODE = 'DLYCL1';
const TOKEN = 'cluster-delay-token-4e7d1b';
const SECRET = `whsec_${Buffer.from('cluster-delay-secret-24b!!!!').toString('base64')}`;

let cluster: Cluster | undefined;
let receiver: WebhookReceiver | undefined;
afterAll(async () => {
  closeAll();
  await cluster?.stop();
  await receiver?.close();
});

/** The index just after the record that settles the n-th round's end (its round_ended then goes out: docs/events.md). */
const afterRoundEnd = (n: number): number => afterRoundSettled(replay.records, n, ROUND_SETTLE_MS);

const auth = { authorization: `Bearer ${TOKEN}` };
const setDelay = (rest: string, seconds: number) => fetch(`${rest}/admin/matches/${CODE}/delay`, { method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ seconds }) });
const delayOn = async (rest: string) => ((await (await fetch(`${rest}/admin/matches/${CODE}/delay`, { headers: auth })).json()) as { seconds: number }).seconds;
type Ev = { id: string; seq: number; type: string; time: string };

describe('output delay on Redis', () => {
  it('set through one node, holds the events of a match another node runs, and 0 releases them', async () => {
    receiver = await startReceiver();
    cluster = await startCluster(2, { ADMIN_TOKEN: `ops:${TOKEN}`, WEBHOOKS: JSON.stringify([{ id: 'rx', url: receiver.url, secret: SECRET }]) });
    const [a, b] = cluster.nodes;
    expect((await setDelay(b.urls.rest, 2)).status).toBe(200);
    await expect.poll(() => delayOn(a.urls.rest), { timeout: 10_000 }).toBe(2);

    const { socket, ack } = await replayObserver(a.urls.ingest, replay, { key: CLUSTER_KEY, groupCode: CODE });
    expect(ack.value).toBe(true);
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE, to: afterRoundEnd(2) });
    const rounds = (n: number) => (ev: Array<{ type: string }>) => ev.filter((e) => e.type === 'round_ended').length === n;
    await receiver.waitFor(rounds(2), 30_000);
    const delivered = receiver.unique() as unknown as Ev[];
    expect(delivered.map((e) => e.seq)).toEqual(delivered.map((_, i) => i + 1));
    for (const d of receiver.deliveries) {
      const e = JSON.parse(d.body) as Ev;
      expect(Number(d.timestamp), e.id).toBeGreaterThanOrEqual(Math.floor((Date.parse(e.time) + 2000) / 1000));
    }
    // B answers the delayed feed of A's match too (from A's frames in Redis), with its ETag.
    await expect.poll(async () => {
      const res = await fetch(`${b.urls.rest}/feeds/${CODE}/scoreboard.json`);
      return res.status === 200 ? ((await res.json()) as Array<{ leftScore: number; rightScore: number }>).map((r) => r.leftScore + r.rightScore)[0] : -res.status;
    }, { timeout: 20_000 }).toBe(2);

    // A long delay set through B holds round 3 on A; 0 set through B releases it long before.
    expect((await setDelay(b.urls.rest, 60)).status).toBe(200);
    await expect.poll(() => delayOn(a.urls.rest), { timeout: 10_000 }).toBe(60);
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE, from: afterRoundEnd(2), to: afterRoundEnd(3) });
    // A's shard has applied round 3's end (its events came with that frame), and they wait.
    await expect.poll(async () => {
      const body = await (await fetch(`${a.urls.rest}/admin/matches`, { headers: auth })).json() as { matches: Array<{ groupCode: string; teams: Array<{ score: number }> }> };
      const row = body.matches.find((m) => m.groupCode === CODE);
      return row ? row.teams[0].score + row.teams[1].score : -1;
    }, { timeout: 30_000 }).toBe(3);
    await expect.poll(async () => {
      const body = await (await fetch(`${a.urls.rest}/admin/webhooks`, { headers: auth })).json() as { endpoints: { stats: { waiting: number } }[] };
      return body.endpoints[0].stats.waiting;
    }, { timeout: 30_000 }).toBeGreaterThan(0);
    expect(rounds(3)(receiver.unique())).toBe(false);
    expect((await setDelay(b.urls.rest, 0)).status).toBe(200);
    await receiver.waitFor(rounds(3), 30_000);
    const third = (receiver.unique() as unknown as Ev[]).filter((e) => e.type === 'round_ended')[2];
    const delivery = receiver.deliveries.find((d) => d.id === third.id)!;
    expect(Number(delivery.timestamp)).toBeLessThan(Math.floor(Date.parse(third.time) / 1000) + 60);
    const all = receiver.unique() as unknown as Ev[];
    expect(all.map((e) => e.seq)).toEqual(all.map((_, i) => i + 1));
    socket.close();
  }, 120_000);
});
