// The recorded 19-round match, replayed into the real service as fast as it takes it, with a
// overlay connected throughout.
import { describe, expect, it } from 'vitest';
import { overlay } from '../../helpers/clients.js';
import { playReplay, recordedMatch } from '../../helpers/recorded.js';
import { serviceForFile } from '../../helpers/service.js';

const replay = recordedMatch();

type Player = { riotId: string; kills: number; deaths: number; assists: number };
type Team = { teamName: string; roundsWon: number; players: Player[]; roundRecord: { type: string }[] };

const svc = serviceForFile({ AUTH_KEY: 'replay-key', TRUST_REPLAY_TIMESTAMPS: 'true' });

describe('the recorded match end to end', () => {
  it('ends 6–13 with 19 round records, final scoreboards and the game_end frame; team info has higherScore', async () => {
    const code = replay.header.groupCode;
    const fe = await overlay(svc.broadcast, code);
    const result = await playReplay(replay, { url: svc.ingest, key: 'replay-key', pace: 'instant' });
    expect(result.secret).toMatch(/^[A-Z0-9]{16}$/);
    const final = (await fe.waitFor((f) => f.roundPhase === 'game_end', 30_000)) as unknown as { teams: Team[]; isRunning: boolean; roundNumber: number };
    expect(final.isRunning).toBe(false);
    const [left, right] = final.teams;
    expect(left.teamName).toBe('Team Left');
    expect(right.teamName).toBe('Team Right');
    expect([left.roundsWon, right.roundsWon]).toEqual([6, 13]);
    for (const team of final.teams) {
      expect(team.roundRecord.slice(0, 19).every((r) => r.type !== 'upcoming')).toBe(true);
      expect(team.roundRecord.slice(19).every((r) => r.type === 'upcoming')).toBe(true);
    }
    // Players' final K/D/A equal their last scoreboard rows in the file.
    const lastRow = new Map<string, { kills: number; deaths: number; assists: number }>();
    for (const r of replay.records) if (r.type === 'scoreboard') { const d = r.data as { playerId: string; kills: number; deaths: number; assists: number }; lastRow.set(d.playerId, d); }
    const players = final.teams.flatMap((t) => t.players);
    expect(players).toHaveLength(10);
    for (const p of players) {
      const row = lastRow.get(p.riotId)!;
      expect([p.kills, p.deaths, p.assists]).toEqual([row.kills, row.deaths, row.assists]);
    }
    // No secret in any frame.
    for (const raw of fe.raw) expect(raw).not.toContain(result.secret);
    // The match is gone after its final frame; team info carries the result.
    await expect.poll(() => svc.metric('ods_live_matches')).toBe(0);
    const res = await fetch(`${svc.rest}/getTeamInfoForCode?groupCode=${code}`);
    expect(res.status).toBe(200);
    const info = (await res.json()) as { higherScore: number; leftTeam: { name: string } };
    expect(info.higherScore).toBe(1);
    expect(info.leftTeam.name).toBe('Team Left');
    result.socket.close();
  }, 60_000);
});
