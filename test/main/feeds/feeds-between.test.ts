// A code's feeds between matches (issue 37; README, "Feeds for graphics systems"; docs/feeds.md,
// "Between matches"), so vMix titles do not go blank: a scheduled code's feeds answer with the
// fixture's teams and players before the observer logs on; after the match ends (removed) they
// answer with its final state (the last frame the overlays got) for FEEDS_FINAL_HOLD_MS (5 s here,
// injected), then with the fixture again, the series score moved on. A code without a fixture:
// the final state for the hold, then 404. The real service, the example schedule's best of 3 (its
// players are the recorded match's), a real overlay and observer playing the recorded match.
import { afterAll, describe, expect, it } from 'vitest';
import { closeAll } from '../../helpers/clients.js';
import { BO3, exampleCsv, playWholeMap, upload } from '../../helpers/fixtures.js';
import { recordedMatch } from '../../helpers/recorded.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const replay = recordedMatch();
const KEY = 'feeds-between-key-0123456789';
const HOLD_MS = 5000;

let svc: TestService | undefined;
afterAll(async () => {
  closeAll();
  await svc?.close();
});

type Row = Record<string, string | number | boolean | null>;
type FrameTeam = { teamName: string; roundsWon: number; players: Array<{ name: string; kills: number; deaths: number }> };

async function feed(code: string, name: 'scoreboard' | 'players'): Promise<{ status: number; rows: Row[] }> {
  const res = await fetch(`${svc!.rest}/feeds/${code}/${name}`);
  return { status: res.status, rows: res.status === 200 ? await res.json() as Row[] : [] };
}

describe('feeds between matches', () => {
  it('a scheduled code: the fixture before the logon, the final state for the hold after the end, then the fixture with the series score', async () => {
    svc = await startTestService({ AUTH_KEY: KEY, TRUST_REPLAY_TIMESTAMPS: 'true', FEEDS_FINAL_HOLD_MS: String(HOLD_MS) });
    expect((await upload(svc.rest, svc.admin.token, exampleCsv())).status).toBe(201);

    // Before the observer logs on: the fixture's teams, players, first map, 0–0, nothing running.
    const before = await feed(BO3.code, 'scoreboard');
    expect(before.status).toBe(200);
    expect(before.rows[0]).toMatchObject({
      groupCode: BO3.code, isRunning: false, roundNumber: 0, map: 'Icebox', leftName: BO3.wolves.name, leftTricode: BO3.wolves.tricode, leftLogoUrl: BO3.wolves.url,
      rightName: BO3.owls.name, rightTricode: BO3.owls.tricode, leftScore: 0, rightScore: 0, leftSeriesWon: 0, rightSeriesWon: 0, timer: '',
    });
    const players = await feed(BO3.code, 'players');
    expect(players.rows.map((r) => `${r.team} ${r.name}#${r.tagline}`)).toEqual([
      'left gage#senti', 'left rose#lydia', 'left hircose#ratwn', 'left ZodiacGriller#NA1', 'left Pumpkin#VGC',
      'right HippoStalker93#maya', 'right PotatoTheChinese#00000', 'right Uliusjay#CRIBB', 'right YancyK#NA1', 'right aBeautifulBike#NA1',
    ]);
    expect(players.rows.every((r) => r.kills === 0 && r.alive === false)).toBe(true);

    // Map 1, played whole; once the match is removed the feeds show its final frame.
    const { fe, observer } = await playWholeMap(svc, KEY, BO3.code, replay, { left: BO3.wolves.name, right: BO3.owls.name }, [BO3.wolves.name, BO3.owls.name]);
    await expect.poll(async () => (await fetch(`${svc!.rest}/match/${BO3.code}`)).status, { timeout: 30_000 }).toBe(404);
    const last = fe.frames.at(-1)! as unknown as { isRunning: boolean; roundPhase: string; roundNumber: number; teams: FrameTeam[] };
    expect(last.isRunning).toBe(false);
    const final = await feed(BO3.code, 'scoreboard');
    expect(final.status).toBe(200);
    expect(final.rows[0]).toMatchObject({
      isRunning: false, roundPhase: last.roundPhase, roundNumber: last.roundNumber,
      leftName: last.teams[0].teamName, leftScore: last.teams[0].roundsWon, rightName: last.teams[1].teamName, rightScore: last.teams[1].roundsWon,
    });
    expect([final.rows[0].leftScore, final.rows[0].rightScore]).toEqual([6, 13]);
    const finalPlayers = (await feed(BO3.code, 'players')).rows;
    expect(finalPlayers.map((r) => [r.name, r.kills, r.deaths])).toEqual(last.teams.flatMap((t) => t.players.map((p) => [p.name, p.kills, p.deaths])));
    expect(finalPlayers.every((r) => typeof r.playerId === 'string' && r.playerId !== '')).toBe(true);

    // After the hold: the fixture again, the owls one map up, the next map.
    await expect.poll(async () => (await feed(BO3.code, 'scoreboard')).rows[0]?.roundNumber, { timeout: HOLD_MS + 20_000, interval: 250 }).toBe(0);
    expect((await feed(BO3.code, 'scoreboard')).rows[0]).toMatchObject({ map: 'Lotus', leftName: BO3.wolves.name, rightName: BO3.owls.name, leftSeriesWon: 0, rightSeriesWon: 1, leftScore: 0, isRunning: false });
    observer.close();
  }, 180_000);

  it('a code without a fixture: the final state for the hold, then 404', async () => {
    const code = 'NOFIXT';
    const { fe, observer } = await playWholeMap(svc!, KEY, code, replay, { left: 'Team Left', right: 'Team Right' }, ['Team Left', 'Team Right']);
    await expect.poll(async () => (await fetch(`${svc!.rest}/match/${code}`)).status, { timeout: 30_000 }).toBe(404);
    const last = fe.frames.at(-1)! as unknown as { teams: FrameTeam[] };
    const final = await feed(code, 'scoreboard');
    expect(final.status).toBe(200);
    expect(final.rows[0]).toMatchObject({ isRunning: false, leftName: 'Team Left', leftScore: last.teams[0].roundsWon, rightScore: last.teams[1].roundsWon });
    await expect.poll(async () => (await feed(code, 'scoreboard')).status, { timeout: HOLD_MS + 20_000, interval: 250 }).toBe(404);
    expect((await feed(code, 'players')).status).toBe(404);
    observer.close();
  }, 180_000);
});
