// The feeds join the events and the records (issue 37; README, "Joining the outputs"): the players
// feed carries each player's `playerId`, the id every event and the match record use, and every
// team or player in the events, the record and the players feed carries `overlayTeam` (`left` /
// `right`, where the overlays and the feeds' left…/right… columns show it), so a consumer joins
// them without match_created. The recorded match played into a real service with a real webhook
// receiver, logged on with the sides the other way round (the left team is the game's team 1, so
// the overlay's side and the game team differ); the feeds polled mid-match.
import { describe, expect, it } from 'vitest';
import { recordedMatch, replayObserver, sendRecords } from '../../helpers/recorded.js';
import { serviceWithReceiver, webhookSecret } from '../../helpers/webhook-service.js';

const replay = recordedMatch();
const KEY = 'feeds-join-key-0123456789';
const CODE = 'FJOIN1';
const SECRET = webhookSecret('feeds-join-secret-of-24-bytes!');

const start = serviceWithReceiver(SECRET);

type Row = Record<string, string | number | boolean | null>;
type Line = { playerId: string; name: string; team: number; overlayTeam: string };
type TeamLine = { team: number; name: string; overlayTeam: string };

describe('the feeds beside the events and the records', () => {
  it('the players feed names each player by the playerId of the events and the record, and a team by the same overlayTeam everywhere', async () => {
    const { svc, rx } = await start({ AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true' });
    const h = replay.header as { leftTeam: Record<string, unknown>; rightTeam: Record<string, unknown> };
    const { socket } = await replayObserver(svc.ingest, replay, { key: KEY, groupCode: CODE, leftTeam: { ...h.leftTeam, attackStart: false }, rightTeam: { ...h.rightTeam, attackStart: true } });
    await sendRecords(socket, replay, { pace: 'instant', groupCode: CODE, to: 1500 });
    await rx.waitFor((ev) => ev.some((e) => e.type === 'round_ended' && e.round === 9), 60_000);
    const res = await fetch(`${svc.rest}/feeds/${CODE}/players`);
    expect(res.status).toBe(200);
    const rows = await res.json() as Row[];
    const [board] = await (await fetch(`${svc.rest}/feeds/${CODE}/scoreboard`)).json() as Row[];
    const csv = await (await fetch(`${svc.rest}/feeds/${CODE}/players.csv`)).text();
    expect(csv.split(/\r?\n/)[0].split(',').slice(-2)).toEqual(['playerId', 'overlayTeam']); // added last: no column moved
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

    // The same key for a team everywhere. The left team is the game's team 1 here.
    const teams = ended.data.teams as TeamLine[];
    expect(teams.map((t) => [t.team, t.overlayTeam, t.name])).toEqual([[0, 'right', board.rightName], [1, 'left', board.leftName]]);
    const sideOf = new Map(rows.map((r) => [r.playerId as string, r.overlayTeam as string]));
    for (const row of rows) expect(row.overlayTeam).toBe(row.team);
    expect([...sideOf.values()].filter((s) => s === 'left')).toHaveLength(5);
    const gameTeamOf = new Map(teams.map((t) => [t.overlayTeam, t.team]));
    const players = [
      ...events.filter((x) => x.type === 'round_ended' || x.type === 'match_ended').flatMap((e) => e.data.players as Line[]),
      ...events.filter((x) => x.type === 'kill').flatMap((e) => [e.data.attacker, e.data.victim, ...(e.data.assists as Line[])] as Line[]),
      ...record.players, ...(record as unknown as { playerRounds: Line[] }).playerRounds,
    ];
    expect(players.length).toBeGreaterThan(400);
    for (const p of players) {
      expect(p.overlayTeam).toBe(sideOf.get(p.playerId));
      expect(p.team).toBe(gameTeamOf.get(p.overlayTeam));
    }
    // The round winners by overlayTeam: the scoreboard's left and right score at round 9's end.
    const winners = events.filter((x) => x.type === 'round_ended' && (x.round as number) <= 9).map((e) => (e.data.winner as TeamLine));
    for (const w of winners) expect(w.team).toBe(gameTeamOf.get(w.overlayTeam));
    expect(board.roundNumber).toBe(10);
    expect([winners.filter((w) => w.overlayTeam === 'left').length, winners.filter((w) => w.overlayTeam === 'right').length]).toEqual([board.leftScore, board.rightScore]);
    expect((record as unknown as { rounds: { winner: TeamLine }[] }).rounds.every((r) => r.winner.team === gameTeamOf.get(r.winner.overlayTeam))).toBe(true);
    socket.close();
  }, 180_000);
});
