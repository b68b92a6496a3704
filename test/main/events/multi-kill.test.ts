// multi_kill without bookkeeping (issue 37; docs/events.md, "Multi-kill"): a multi_kill comes at
// each kill from a player's 2nd in a round, its `kills` the running count, so the last one of a
// player and round is the multi-kill; round_ended's `multiKills` gives each player's final one as
// the round ended. The recorded match played into a real service with a real receiver: for every
// round, round_ended's multiKills is exactly what folding the round's multi_kill events before it
// (keeping the highest per player) gives, it agrees with the recording's killfeed, and every event
// validates against GET /schema/events.json.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { recordingFacts } from '../../helpers/recorded-events.js';
import { serviceWithReceiver, webhookSecret } from '../../helpers/webhook-service.js';

const replay = recordedMatch();
const facts = recordingFacts(replay);
const KEY = 'multi-kill-key-0123456789';
const CODE = 'MULTIK';
const SECRET = webhookSecret('multi-kill-secret-of-24-bytes!');

const start = serviceWithReceiver(SECRET);

type Multi = { player: { playerId: string; name: string }; kills: number };

describe('multi_kill and round_ended.multiKills', () => {
  it('round_ended lists each player\'s final multi-kill of the round: the highest of its multi_kill events', async () => {
    const { svc, rx } = await start({ AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true' });
    const { socket } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: CODE });
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE });
    await rx.waitFor((ev) => ev.some((e) => e.type === 'match_ended'), 90_000);
    const events = rx.unique();

    const ajv = new Ajv2020({ allErrors: true, strict: false });
    ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)));
    const validate = ajv.compile(await (await fetch(`${svc.rest}/schema/events.json`)).json() as object);
    for (const e of events) expect(validate(e) ? [] : validate.errors, `${e.seq} ${e.type}`).toEqual([]);

    const ends = events.filter((e) => e.type === 'round_ended');
    expect(ends).toHaveLength(19);
    let listed = 0;
    for (const end of ends) {
      const round = end.data.round as number;
      // What a consumer had to fold before: the highest multi_kill per player among the round's, before its round_ended.
      const highest = new Map<string, Multi>();
      for (const e of events) {
        if (e.type !== 'multi_kill' || e.round !== round || e.seq > end.seq) continue;
        const m = e.data as unknown as Multi;
        if ((highest.get(m.player.playerId)?.kills ?? 0) < m.kills) highest.set(m.player.playerId, m);
      }
      const multiKills = end.data.multiKills as Multi[];
      expect(new Map(multiKills.map((m) => [m.player.playerId, m.kills])), `round ${round}`).toEqual(new Map([...highest].map(([id, m]) => [id, m.kills])));
      for (const m of multiKills) expect(m.player).toEqual(highest.get(m.player.playerId)!.player);
      // The recording's killfeed: every player with 2+ kills of enemies in the round is listed (post-round kills aside).
      for (const m of multiKills) expect(facts.perRound.get(`${round}|${m.player.name}`)!.kills).toBeGreaterThanOrEqual(m.kills);
      listed += multiKills.length;
    }
    expect(listed).toBeGreaterThan(5);
    socket.close();
  }, 180_000);
});
