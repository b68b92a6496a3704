// Match events out through webhooks (README, "Webhooks"; docs/events.md): the recorded match played
// by a real observer into a real service with two real local webhook receivers. Every event reaches
// each receiver once after de-duplication by webhook-id, in seq order, each delivery signed per
// Standard Webhooks (verified with the `standardwebhooks` library); the events agree with the
// recording's rows (recorded-events.ts); one receiver is down in the middle, for as many failed
// attempts as 30 s of the default back-off holds (1 s doubling: 5), and gets everything afterwards; the match's record (JSON and CSV) equals the totals computed from the rows.
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { parseCsv, recordingFacts } from '../../helpers/recorded-events.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const replay = recordedMatch();
const facts = recordingFacts(replay);
const KEY = 'events-key-0123456789';
const CODE = 'EVTWH1';
const SECRET_A = `whsec_${Buffer.from('a-secret-of-24-bytes-or-more!!').toString('base64')}`;
const SECRET_B = `whsec_${Buffer.from('b-secret-of-24-bytes-or-more!!').toString('base64')}`;
const HALF = Math.floor(replay.records.length / 2);
/** The back-off at a tenth of its defaults (1 s doubling up to 30 s): the outage's shape, in a tenth of its time. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 3000;
/** Attempts that fail in a row while B is down: with the defaults, at 0, 1, 3, 7 and 15 s of a 30 s outage (the next at 31 s). */
const FAILED_IN_OUTAGE = 5;

const receivers: WebhookReceiver[] = [];
let svc: TestService | undefined;
afterAll(async () => {
  closeAll();
  await svc?.close();
  for (const r of receivers) await r.close();
});

type Ev = ReturnType<WebhookReceiver['unique']>[number];
const ended = (events: Ev[]) => events.some((e) => e.type === 'match_ended');

/** Every delivery's signature checks out with the library, and the body is the event its id names. */
function verifyAll(receiver: WebhookReceiver, secret: string): void {
  const wh = new Webhook(secret);
  for (const d of receiver.deliveries) {
    const payload = wh.verify(d.body, { 'webhook-id': d.id, 'webhook-timestamp': d.timestamp, 'webhook-signature': d.signature }) as { id: string };
    expect(payload.id).toBe(d.id);
  }
  expect(() => new Webhook(SECRET_B === secret ? SECRET_A : SECRET_B).verify(receiver.deliveries[0].body, {
    'webhook-id': receiver.deliveries[0].id, 'webhook-timestamp': receiver.deliveries[0].timestamp, 'webhook-signature': receiver.deliveries[0].signature,
  })).toThrow();
}

/** Unique events in first-arrival order have seq 1, 2, 3 … without a gap, for one match. */
function inOrder(events: Ev[]): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
}

describe('webhooks', () => {
  it('deliver every event of the recorded match, signed, in order, agreeing with the recording, across an outage of 5 failed attempts (30 s of the default back-off)', async () => {
    const a = await startReceiver();
    const b = await startReceiver();
    receivers.push(a, b);
    svc = await startTestService({
      AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', WEBHOOK_RETRY_FIRST_MS: String(RETRY_FIRST_MS), WEBHOOK_RETRY_MAX_MS: String(RETRY_MAX_MS),
      WEBHOOKS: JSON.stringify([{ id: 'a', url: a.url, secret: SECRET_A }, { id: 'b', url: b.url, secret: SECRET_B }]),
    });
    const { socket, ack } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: CODE });
    expect(ack.value).toBe(true);

    // First half: both receivers get the events so far.
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE, to: HALF });
    await b.waitFor((ev) => ev.some((e) => e.type === 'round_ended'), 30_000);

    // B is down (connection refused) while the rest of the match is played, until the service has
    // backed off from it FAILED_IN_OUTAGE times (the back-off's own clock, counted by the admin API).
    await b.down();
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE, from: HALF });
    await a.waitFor(ended, 60_000);
    expect(ended(b.unique())).toBe(false);
    const failedOnB = async () => ((await (await svc!.admin.request('GET', '/admin/webhooks')).json()) as { endpoints: { id: string; stats: { failedAttempts: number } }[] })
      .endpoints.find((e) => e.id === 'b')!.stats.failedAttempts;
    await expect.poll(failedOnB, { timeout: 30_000, interval: 50 }).toBeGreaterThanOrEqual(FAILED_IN_OUTAGE);
    expect(ended(b.unique())).toBe(false);
    await b.up();
    await b.waitFor(ended, 90_000);

    for (const [r, secret] of [[a, SECRET_A], [b, SECRET_B]] as const) {
      verifyAll(r, secret);
      inOrder(r.unique());
    }
    const events = a.unique();
    expect(b.unique()).toEqual(events);
    expect(events[0].type).toBe('match_created');
    // The lobby: the recording's map once, each of the ten roster players' agent once, then the start.
    expect(events.filter((e) => e.type === 'map_selected').map((e) => e.data.map)).toEqual(['Icebox']);
    expect(events.filter((e) => e.type === 'agent_selected')).toHaveLength(replay.records.filter((r) => r.type === 'roster').length);
    expect(events.filter((e) => e.type === 'match_started')).toHaveLength(1);
    expect(events.every((e) => e.groupCode === CODE && e.version === 1 && e.id === `${e.matchKey}.${e.seq}`)).toBe(true);

    // The rounds: 19 round_ended with the recording's winners, sides and scores.
    const rounds = events.filter((e) => e.type === 'round_ended').map((e) => e.data as { round: number; winner: { team: number; side: string }; score: unknown });
    expect(rounds.map((r) => ({ round: r.round, winner: r.winner.team, side: r.winner.side, score: r.score }))).toEqual(facts.rounds);
    expect(rounds).toHaveLength(19);
    // The kills, in the recording's order.
    const kills = events.filter((e) => e.type === 'kill').map((e) => {
      const d = e.data as { attacker: { name: string }; victim: { name: string }; headshot: boolean; teamKill: boolean };
      return { round: e.round, attacker: d.attacker.name, victim: d.victim.name, headshot: d.headshot, teamKill: d.teamKill };
    });
    expect(kills).toEqual(facts.kills);
    // The end: the final score and the game's totals per player.
    const end = events.find((e) => e.type === 'match_ended')!;
    expect(end.data.score).toEqual(facts.finalScore);
    expect(end.data.reason).toBe('completed');
    const players = end.data.players as { name: string; kills: number; deaths: number; assists: number }[];
    expect(players).toHaveLength(10);
    for (const p of players) expect({ kills: p.kills, deaths: p.deaths, assists: p.assists }).toEqual(facts.totals.get(p.name));
    expect(events.filter((e) => e.type === 'spike_planted').map((e) => e.round)).toEqual(facts.plants);
    expect(facts.plants).toHaveLength(replay.records.filter((r) => r.type === 'spike_planted').length - 1);

    // The record, as JSON and as CSV, equals the figures computed from the rows.
    const key = encodeURIComponent(end.matchKey);
    const record = await (await svc.admin.request('GET', `/admin/records/${key}`)).json() as { rounds: unknown[]; players: { name: string; kills: number; deaths: number; assists: number; headshots: number; firstBloods: number }[] };
    expect(record).toEqual((end.data as { record: unknown }).record);
    expect(record.rounds).toHaveLength(19);
    const perPlayer = (name: string, k: 'headshots' | 'firstBloods') => [...facts.perRound].filter(([key]) => key.endsWith(`|${name}`)).reduce((s, [, l]) => s + l[k], 0);
    for (const p of record.players) {
      expect({ kills: p.kills, deaths: p.deaths, assists: p.assists }).toEqual(facts.totals.get(p.name));
      expect(p.headshots).toBe(perPlayer(p.name, 'headshots'));
      expect(p.firstBloods).toBe(perPlayer(p.name, 'firstBloods'));
    }
    const roundsCsv = parseCsv(await (await svc.admin.request('GET', `/admin/records/${key}/rounds.csv`)).text());
    expect(roundsCsv).toHaveLength(19 * 10);
    for (const row of roundsCsv) {
      const f = facts.perRound.get(`${row.round}|${row.name}`) ?? { kills: 0, deaths: 0, headshots: 0, firstBloods: 0 };
      expect({ kills: +row.kills, deaths: +row.deaths, headshots: +row.headshots, firstBloods: +row.firstBloods }).toEqual(f);
    }
    const playersCsv = parseCsv(await (await svc.admin.request('GET', `/admin/records/${key}/players.csv`)).text());
    expect(playersCsv).toHaveLength(10);
    for (const row of playersCsv) expect({ kills: +row.kills, deaths: +row.deaths, assists: +row.assists }).toEqual(facts.totals.get(row.name));
  }, 240_000);
});
