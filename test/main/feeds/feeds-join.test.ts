// The feeds join the events and the records (issue 37; README, "Feeds for graphics systems"): the
// players feed carries each player's `playerId`, the id every event and the match record use. The
// recorded match played into a real service with a real webhook receiver; the feed polled mid-match.
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll } from '../../helpers/clients.js';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const replay = recordedMatch();
const KEY = 'feeds-join-key-0123456789';
const CODE = 'FJOIN1';
const SECRET = `whsec_${Buffer.from('feeds-join-secret-of-24-bytes!').toString('base64')}`;

let svc: TestService | undefined;
let rx: WebhookReceiver | undefined;
afterAll(async () => {
  closeAll();
  await svc?.close();
  await rx?.close();
});

type Row = Record<string, string | number | boolean | null>;
type Line = { playerId: string; name: string; team: number };

describe('the feeds beside the events and the records', () => {
  it('the players feed names each player by the playerId of the events and the record', async () => {
    rx = await startReceiver();
    svc = await startTestService({ AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', WEBHOOKS: JSON.stringify([{ id: 'rx', url: rx.url, secret: SECRET }]) });
    const { socket } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: CODE });
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE, to: 1500 });
    await rx.waitFor((ev) => ev.some((e) => e.type === 'round_ended' && e.round === 9), 60_000);
    const res = await fetch(`${svc.rest}/feeds/${CODE}/players`);
    expect(res.status).toBe(200);
    const rows = await res.json() as Row[];
    const csv = await (await fetch(`${svc.rest}/feeds/${CODE}/players.csv`)).text();
    expect(csv.split(/\r?\n/)[0].split(',').at(-1)).toBe('playerId'); // added last: no column moved
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE, from: 1500 });
    await rx.waitFor((ev) => ev.some((e) => e.type === 'match_ended'), 60_000);

    const events = rx.unique();
    const ended = events.find((e) => e.type === 'match_ended')!;
    const fromEvents = new Map<string, string>();
    for (const e of events.filter((x) => x.type === 'round_ended')) for (const p of e.data.players as Line[]) fromEvents.set(p.playerId, p.name);
    for (const e of events.filter((x) => x.type === 'kill')) {
      for (const p of [e.data.attacker, e.data.victim] as Partial<Line>[]) if (p.playerId) expect(fromEvents.get(p.playerId)).toBe(p.name);
    }
    const record = await (await svc.admin.request('GET', `/admin/records/${encodeURIComponent(ended.matchKey)}`)).json() as { players: Line[] };

    expect(rows).toHaveLength(10);
    expect(fromEvents.size).toBe(10);
    for (const row of rows) {
      expect(typeof row.playerId === 'string' && row.playerId.length > 0).toBe(true);
      expect(fromEvents.get(row.playerId as string)).toBe(row.name);
      expect(record.players.find((p) => p.playerId === row.playerId)?.name).toBe(row.name);
    }
    socket.close();
  }, 180_000);
});
