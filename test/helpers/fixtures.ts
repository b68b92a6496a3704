// The schedule (README, "A day's schedule") as the fixture tests use it: the example CSV in the
// repository, its best of 3 (whose players are the recorded match's ten), uploads over the admin
// API, and the recorded match with its players' game teams swapped (the other team wins 13–6), so
// that a series can go 1–1.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { overlay } from './clients.js';
import { replayObserver, sendRecords, type Replay } from './recorded.js';

export const EXAMPLE_CSV_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../data/fixtures-example.csv');
export const exampleCsv = (): string => fs.readFileSync(EXAMPLE_CSV_PATH, 'utf8');

/** The example's best of 3: team 1 are the recorded match's game team 0, team 2 its game team 1 (who win 13–6). */
export const BO3 = {
  code: 'UBF301',
  wolves: { name: 'Harbor Wolves', tricode: 'HBW', url: 'https://cdn.example.org/teams/harbor-wolves.png' },
  owls: { name: 'Crimson Owls', tricode: 'CRO', url: 'https://cdn.example.org/teams/crimson-owls.png' },
};

export async function upload(rest: string, token: string, body: string, contentType = 'text/csv'): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${rest}/admin/fixtures`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType }, body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

export interface ShownFixture {
  groupCode: string;
  status: string;
  wins: [number, number];
  results: Array<{ map: string; scores: [number, number]; winner: number }>;
  live: { sides: [number, number]; flags: string[] } | null;
}

export async function fixture(rest: string, token: string, code: string): Promise<ShownFixture | undefined> {
  const res = await fetch(`${rest}/admin/fixtures/${code}`, { headers: { authorization: `Bearer ${token}` } });
  return res.status === 200 ? (await res.json()) as ShownFixture : undefined;
}

export async function fixtureList(rest: string, token: string): Promise<ShownFixture[]> {
  const res = await fetch(`${rest}/admin/fixtures`, { headers: { authorization: `Bearer ${token}` } });
  return ((await res.json()) as { fixtures: ShownFixture[] }).fixtures;
}

/**
 * The recording with its players' game teams swapped (roster and scoreboard `startTeam`) and its own
 * match id, the score left as it is: game team 1 still wins 13–6, but game team 1 is now the players
 * of the original game team 0.
 */
export function swappedTeams(replay: Replay, matchId: string): Replay {
  const flip = (t: unknown) => (typeof t === 'string' ? (t === '0' ? '1' : '0') : t === 0 ? 1 : 0);
  const records = replay.records.map((r) => {
    const data = r.data as Record<string, unknown>;
    if (r.type === 'roster' || r.type === 'scoreboard') return { ...r, data: { ...data, startTeam: flip(data.startTeam) } };
    if (r.type === 'match_start') return { ...r, data: matchId };
    return r;
  });
  return { ...replay, records };
}

/** The recording with its own match id (each map of a series is another game). */
export function withMatchId(replay: Replay, matchId: string): Replay {
  return { ...replay, records: replay.records.map((r) => (r.type === 'match_start' ? { ...r, data: matchId } : r)) };
}

/** The frames' teams, tools and scores the fixture tests read. */
export type SeriesFrame = {
  teams: Array<{ teamName: string; teamTricode: string; teamUrl: string; roundsWon: number; players: unknown[] }>;
  roundPhase: string;
  tools: { seriesInfo: Record<string, unknown> };
};

/**
 * One whole map of the recording on `code`: an overlay on `broadcast` and an observer on `ingest`
 * (the client's options) that types `typed` (left attacking); it sends the roster first and the rest
 * once the overlay shows `expected` on its sides. Resolves with the overlay and the observer, after game_end.
 */
export async function playWholeMap(urls: { ingest: string; broadcast: string }, key: string, code: string, map: Replay, typed: { left: string; right: string }, expected: [string, string]) {
  const fe = await overlay(urls.broadcast, code);
  const { socket: observer, ack } = await replayObserver(urls.ingest, map, {
    key, groupCode: code,
    leftTeam: { name: typed.left, tricode: 'XXX', url: 'https://typed.example.org/l.png', attackStart: true },
    rightTeam: { name: typed.right, tricode: 'YYY', url: 'https://typed.example.org/r.png', attackStart: false },
  });
  if (!ack.value) throw new Error(`logon refused: ${ack.reason}`);
  const lastRoster = map.records.map((r) => r.type).lastIndexOf('roster');
  await sendRecords(observer, map, { pace: 'instant', groupCode: code, to: lastRoster + 1 });
  const f = (x: Record<string, unknown>) => x as unknown as SeriesFrame;
  const sided = await fe.waitFor((x) => f(x).teams.every((t) => t.players.length === 5) && f(x).teams.map((t) => t.teamName).join() === expected.join(), 30_000);
  await sendRecords(observer, map, { pace: 'instant', groupCode: code, from: lastRoster + 1 });
  await fe.waitFor((x) => f(x).roundPhase === 'game_end', 90_000);
  return { fe, from: fe.frames.indexOf(sided), observer };
}
