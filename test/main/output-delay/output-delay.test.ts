// The per-match output delay (README, "Output delay"; docs/events.md, "Output delay"): the recorded
// match played by a real observer into a real service with a real local webhook receiver, a real
// GET /events stream and real polls of GET /feeds. With a delay of 2 s no delivery, stream event or
// feed answer of the match comes before its event is due (the delivery's webhook-timestamp and the
// event's time are both the service's clock; the stream's and the feed's arrival times are this
// process's clock, which is the in-process service's too); everything arrives, in order; setting 0
// releases what waits at once; a restart during the delay loses nothing and hands nothing on early.
// The admin route with and without its token, and its bounds.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, tempDir, type TestService } from '../../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { afterRoundSettled } from '../../helpers/recorded-events.js';
import { ROUND_SETTLE_MS } from '../../../src/workers/events/round-end.js';

const replay = recordedMatch();
const KEY = 'delay-key-0123456789';
const READ = 'delay-read-token-0123456789';
const SECRET = `whsec_${Buffer.from('delay-secret-of-24-bytes!!!!').toString('base64')}`;
const D = 2;
/** The restart's delay: long enough that the restarted service answers its first feed poll within it. */
const RESTART_DELAY = 5;

/** The index just after the record that settles the n-th round's end (its round_ended then goes out: docs/events.md). */
const afterRoundEnd = (n: number): number => afterRoundSettled(replay.records, n, ROUND_SETTLE_MS);

const services: TestService[] = [];
const receivers: WebhookReceiver[] = [];
const aborts: AbortController[] = [];
afterAll(async () => {
  for (const a of aborts) a.abort();
  closeAll();
  for (const s of services) await s.close();
  for (const r of receivers) await r.close();
});

function setDelay(svc: TestService, code: string, body: unknown, token: string | null = svc.admin.token): Promise<Response> {
  return fetch(`${svc.rest}/admin/matches/${encodeURIComponent(code)}/delay`, {
    method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
}

async function waiting(svc: TestService): Promise<number> {
  const body = await (await svc.admin.request('GET', '/admin/webhooks')).json() as { endpoints: { stats: { waiting: number } }[] };
  return body.endpoints[0].stats.waiting;
}

async function liveRounds(svc: TestService, code: string): Promise<number> {
  const row = await svc.admin.match(code);
  return row ? row.teams[0].score + row.teams[1].score : -1;
}

type Ev = { id: string; seq: number; type: string; time: string; data: Record<string, any> };

/** GET /events of one code: each event with the time it arrived here. */
async function openStream(svc: TestService, code: string, lastEventId = '') {
  const ctrl = new AbortController();
  aborts.push(ctrl);
  const res = await fetch(`${svc.rest}/events?groupCode=${code}`, { signal: ctrl.signal, headers: { authorization: `Bearer ${READ}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) } });
  expect(res.status).toBe(200);
  const events: Array<{ at: number; event: Ev }> = [];
  void (async () => {
    const reader = res.body!.getReader();
    let buffer = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += Buffer.from(value).toString('utf8');
        let i: number;
        while ((i = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (data && /^id: /m.test(block)) events.push({ at: Date.now(), event: JSON.parse(data) as Ev });
        }
      }
    } catch { /* aborted */ }
  })();
  return { events, stop: () => ctrl.abort() };
}

/** Every delivery of the receiver came at or after its event was due (webhook-timestamp is whole seconds, sent ≥ stored + delay ≥ time + delay). */
function deliveredWhenDue(receiver: WebhookReceiver, delayS: number): void {
  for (const d of receiver.deliveries) {
    const body = JSON.parse(d.body) as Ev | Ev[];
    // A batch endpoint's delivery holds several events: each was due.
    for (const e of Array.isArray(body) ? body : [body]) {
      expect(Number(d.timestamp), `${e.id} ${e.type}`).toBeGreaterThanOrEqual(Math.floor((Date.parse(e.time) + delayS * 1000) / 1000));
    }
  }
}

const inOrder = (events: Ev[]) => expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));

describe('output delay', () => {
  it('is set through the admin API with its token, within 0 to 600 s', async () => {
    const svc = await startTestService({ AUTH_KEY: KEY });
    services.push(svc);
    expect((await setDelay(svc, 'ADMDLY', { seconds: 5 }, null)).status).toBe(401);
    expect((await setDelay(svc, 'ADMDLY', { seconds: 5 }, 'not-the-token')).status).toBe(401);
    expect((await fetch(`${svc.rest}/admin/delays`)).status).toBe(401);
    for (const bad of [{ seconds: 601 }, { seconds: -1 }, { seconds: 1.5 }, { seconds: '5' }, {}, null]) {
      const res = await setDelay(svc, 'ADMDLY', bad);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(/seconds: a whole number from 0 \(off\) to 600/);
    }
    const notJson = await fetch(`${svc.rest}/admin/matches/ADMDLY/delay`, { method: 'POST', body: '{', headers: { authorization: `Bearer ${svc.admin.token}` } });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: string }).error).toBeTruthy();
    expect((await (await setDelay(svc, 'ADMDLY', { seconds: 600 })).json())).toEqual({ groupCode: 'ADMDLY', seconds: 600 });
    expect(await (await svc.admin.request('GET', '/admin/matches/ADMDLY/delay')).json()).toEqual({ groupCode: 'ADMDLY', seconds: 600 });
    expect(await (await svc.admin.request('GET', '/admin/delays')).json()).toEqual({ delays: [{ groupCode: 'ADMDLY', seconds: 600 }], max: 600 });
    // Kept in DATA_DIR (operator data, like the schedule), and 0 removes it.
    expect(JSON.parse(fs.readFileSync(path.join(svc.dataDir, 'output-delays.json'), 'utf8'))).toEqual({ version: 1, delays: { ADMDLY: 600 } });
    expect(await (await setDelay(svc, 'ADMDLY', { seconds: 0 })).json()).toEqual({ groupCode: 'ADMDLY', seconds: 0 });
    expect(await (await svc.admin.request('GET', '/admin/delays')).json()).toEqual({ delays: [], max: 600 });
    expect(svc.logged({ action: 'output_delay', groupCode: 'ADMDLY' }).length).toBe(2);
  });

  it('holds the webhooks, the stream and the feeds of a delayed match until due, in order, and 0 releases what waits', async () => {
    const CODE = 'DELAY1';
    const receiver = await startReceiver();
    const batched = await startReceiver();
    receivers.push(receiver, batched);
    const svc = await startTestService({
      AUTH_KEY: KEY, EVENTS_READ_TOKEN: READ,
      WEBHOOKS: JSON.stringify([{ id: 'rx', url: receiver.url, secret: SECRET }, { id: 'batched', url: batched.url, secret: SECRET, batch: true }]),
    });
    services.push(svc);
    expect((await setDelay(svc, CODE, { seconds: D })).status).toBe(200);
    const stream = await openStream(svc, CODE);

    // The scoreboard feed polled every 100 ms from before the match: each answer with when it arrived.
    const answers: Array<{ at: number; status: number; sum: number }> = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const res = await fetch(`${svc.rest}/feeds/${CODE}/scoreboard.json`);
        const body = await res.json() as Array<{ leftScore: number; rightScore: number }>;
        answers.push({ at: Date.now(), status: res.status, sum: res.status === 200 ? body[0].leftScore + body[0].rightScore : -1 });
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    const { socket, ack } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: CODE });
    expect(ack.value).toBe(true);
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE, to: afterRoundEnd(3) });
    const threeRounds = (ev: Array<{ type: string }>) => ev.filter((e) => e.type === 'round_ended').length === 3;
    await receiver.waitFor(threeRounds, 30_000);
    await batched.waitFor(threeRounds, 30_000);
    await expect.poll(() => threeRounds(stream.events.map((s) => s.event)), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => answers.at(-1)?.sum, { timeout: 30_000 }).toBe(3);
    polling = false;
    await poller;

    // Webhooks: every event once, in order, none before it was due.
    const delivered = receiver.unique() as unknown as Ev[];
    inOrder(delivered);
    deliveredWhenDue(receiver, D);
    inOrder(batched.unique() as unknown as Ev[]);
    deliveredWhenDue(batched, D);
    // The stream: the same events, in order, none before it was due.
    const streamed = stream.events.map((s) => s.event);
    inOrder(streamed);
    expect(streamed.map((e) => e.id)).toEqual(delivered.slice(0, streamed.length).map((e) => e.id));
    for (const s of stream.events) expect(s.at, s.event.id).toBeGreaterThanOrEqual(Date.parse(s.event.time) + D * 1000);
    // The feeds lag: an answer showing n rounds played came after the n-th round_ended was due; none
    // showed the match before its match_created was due.
    const created = delivered.find((e) => e.type === 'match_created')!;
    const roundEnds = delivered.filter((e) => e.type === 'round_ended');
    for (const a of answers.filter((x) => x.status === 200)) {
      expect(a.at).toBeGreaterThanOrEqual(Date.parse(created.time) + D * 1000);
      if (a.sum > 0) expect(a.at, `answer with ${a.sum} rounds`).toBeGreaterThanOrEqual(Date.parse(roundEnds[a.sum - 1].time) + D * 1000);
    }
    // While the match was live already, the delayed feed still answered as before it (no match yet).
    expect(answers.some((a) => a.status === 404 && a.at > Date.parse(created.time) + 100)).toBe(true);
    // ETag and 304 still work on a delayed feed.
    await expect.poll(async () => {
      const first = await fetch(`${svc.rest}/feeds/${CODE}/players.csv`);
      await first.text();
      const again = await fetch(`${svc.rest}/feeds/${CODE}/players.csv`, { headers: { 'if-none-match': first.headers.get('etag') ?? '' } });
      return again.status;
    }, { timeout: 15_000 }).toBe(304);

    // A long delay holds round 4's events; setting 0 releases them at once (long before the 30 s).
    expect((await setDelay(svc, CODE, { seconds: 30 })).status).toBe(200);
    const before = receiver.unique().length;
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE, from: afterRoundEnd(3), to: afterRoundEnd(4) });
    await expect.poll(() => liveRounds(svc, CODE), { timeout: 30_000 }).toBe(4);
    await expect.poll(() => waiting(svc), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(receiver.unique().length).toBe(before);
    // A stream resumed now from the last event it had gets nothing held back (the resume window has only what was handed on).
    const lastStreamed = stream.events.at(-1)!.event;
    const resumed = await openStream(svc, CODE, lastStreamed.id);
    const releasedAt = Date.now();
    expect((await setDelay(svc, CODE, { seconds: 0 })).status).toBe(200);
    const fourRounds = (ev: Array<{ type: string }>) => ev.filter((e) => e.type === 'round_ended').length === 4;
    await receiver.waitFor(fourRounds, 20_000);
    await batched.waitFor(fourRounds, 20_000);
    inOrder(batched.unique() as unknown as Ev[]);
    await expect.poll(() => fourRounds(stream.events.map((s) => s.event)), { timeout: 20_000 }).toBe(true);
    await expect.poll(() => fourRounds([...streamed, ...resumed.events.map((s) => s.event)]), { timeout: 20_000 }).toBe(true);
    expect(resumed.events[0].event.seq).toBe(lastStreamed.seq + 1);
    for (const s of resumed.events) expect(s.at, s.event.id).toBeGreaterThanOrEqual(releasedAt);
    resumed.stop();
    const all = receiver.unique() as unknown as Ev[];
    inOrder(all);
    inOrder(stream.events.map((s) => s.event));
    const fourth = all.filter((e) => e.type === 'round_ended')[3];
    const fourthDelivery = receiver.deliveries.find((d) => d.id === fourth.id)!;
    expect(Number(fourthDelivery.timestamp)).toBeLessThan(Math.floor(Date.parse(fourth.time) / 1000) + 30);
    // The feeds are live again.
    const live = await fetch(`${svc.rest}/feeds/${CODE}/scoreboard.json`);
    expect(((await live.json()) as Array<{ leftScore: number; rightScore: number }>).map((r) => r.leftScore + r.rightScore)).toEqual([4]);
    stream.stop();
    socket.close();
  }, 120_000);

  it('loses nothing and hands nothing on early across a restart during the delay', async () => {
    const CODE = 'DELAY2';
    const DATA_DIR = tempDir();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const env = { DATA_DIR, AUTH_KEY: KEY, WEBHOOKS: JSON.stringify([{ id: 'rx', url: receiver.url, secret: SECRET }]) };
    const first = await startTestService(env);
    services.push(first);
    expect((await setDelay(first, CODE, { seconds: RESTART_DELAY })).status).toBe(200);
    const { socket, ack } = await replayObserver(first.ingest, replay, { key: KEY, groupCode: CODE });
    expect(ack.value).toBe(true);
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE, to: afterRoundEnd(2) });
    await expect.poll(() => liveRounds(first, CODE), { timeout: 30_000 }).toBe(2);
    await expect.poll(() => waiting(first), { timeout: 30_000 }).toBeGreaterThan(0);
    socket.close();
    await first.close();
    const deliveredBefore = receiver.deliveries.length;
    const journal = fs.readdirSync(path.join(DATA_DIR, 'events')).filter((n) => n.startsWith('ev-'))
      .flatMap((n) => fs.readFileSync(path.join(DATA_DIR, 'events', n), 'utf8').split('\n').filter(Boolean));
    expect(journal.length).toBeGreaterThan(deliveredBefore);

    const second = await startTestService(env);
    services.push(second);
    expect(await (await second.admin.request('GET', `/admin/matches/${CODE}/delay`)).json()).toEqual({ groupCode: CODE, seconds: RESTART_DELAY });
    // The delayed feed does not know the tables of 5 s ago after the restart: 503 with Retry-After,
    // then (the match was not restored: no STATE_DIR) what was true 5 s after the restart: no match.
    const early = await fetch(`${second.rest}/feeds/${CODE}/scoreboard.json`);
    expect(early.status).toBe(503);
    expect(Number(early.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await early.json()) as { error: string }).error).toMatch(/delayed/);
    await expect.poll(async () => (await fetch(`${second.rest}/feeds/${CODE}/scoreboard.json`)).status, { timeout: 20_000 }).toBe(404);
    await receiver.waitFor((ev) => ev.length >= journal.length, 30_000);
    const all = receiver.unique() as unknown as Ev[];
    inOrder(all);
    expect(all.length).toBe(journal.length);
    expect(receiver.deliveries.length).toBeGreaterThan(deliveredBefore);
    deliveredWhenDue(receiver, RESTART_DELAY);
  }, 90_000);
});
