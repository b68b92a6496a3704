// The series as the service keeps it (docs/fixtures.md): wins from the recorded maps, whether the
// series is decided, the fixture's status, and what the next map's overlay gets: the teams on
// their sides and the tool settings (seriesInfo with mapInfo, seedingInfo, the fixture's own).
import type { Fixture, FixtureTeam, LiveMap } from './fixture-store.js';

export type Sides = LiveMap['sides'];
export type FixtureStatus = 'upcoming' | 'live' | 'finished';

/** Maps a team must win: 1, 2 or 3. */
export const needed = (f: Pick<Fixture, 'bestOf'>): number => Math.ceil(f.bestOf / 2);

/** Maps won by each team (fixture order). */
export function wins(f: Pick<Fixture, 'results'>): [number, number] {
  const w: [number, number] = [0, 0];
  for (const r of f.results) w[r.winner]++;
  return w;
}

/** A team has won the series. */
export function decided(f: Pick<Fixture, 'results' | 'bestOf'>): boolean {
  const [a, b] = wins(f);
  return Math.max(a, b) >= needed(f);
}

export function status(f: Fixture): FixtureStatus {
  if (f.live) return 'live';
  if (decided(f) && !f.reopened) return 'finished';
  return 'upcoming';
}

/** The logon's team object for the fixture team `t` on a side (attackStart stays the observer's choice). */
export function logonTeam(team: FixtureTeam, attackStart: boolean): { name: string; tricode: string; url: string; attackStart: boolean } {
  return { name: team.name, tricode: team.tricode, url: team.url, attackStart };
}

/**
 * seriesInfo for the map about to be played (or being played) with the fixture teams on `sides`:
 * `needed`, the wins of the team on each side, and `mapInfo` (best of 3 or 5; [] for a best of 1):
 * the finished maps as `past` with both scores, this one `present`, the rest `future`, in the
 * order of play; three entries, as the observer client sends them (a best of 5 shows the three
 * around the present map). Logos: the picking team's ('' for the decider or when unknown). The map
 * being played is always the one after the recorded results, so a reopened series (docs/fixtures.md)
 * shows its extra map as `present` after the `past` ones (the window ends on it).
 */
export function seriesInfo(f: Fixture, sides: Sides): Record<string, unknown> {
  const [L, R] = sides;
  const w = wins(f);
  const played = f.results.length;
  const pickLogo = (i: number) => {
    const pick = f.maps[i]?.pick;
    return pick === null || pick === undefined ? '' : f.teams[pick].url;
  };
  const entries: Array<Record<string, unknown>> = [];
  if (f.bestOf > 1) {
    for (let i = 0; i < Math.max(f.bestOf, played + 1); i++) {
      if (i < played) {
        const r = f.results[i];
        entries.push({ type: 'past', map: r.map, left: { score: r.scores[L], logo: f.teams[L].url }, right: { score: r.scores[R], logo: f.teams[R].url } });
      } else if (i === played) {
        entries.push({ type: 'present', logo: pickLogo(i) });
      } else {
        entries.push({ type: 'future', map: f.maps[i]?.name ?? 'TBD', logo: pickLogo(i) });
      }
    }
  }
  const first = Math.max(0, Math.min(played - 1, entries.length - 3));
  return {
    enable: true, needed: needed(f), wonLeft: w[L], wonRight: w[R],
    seedingLeft: f.teams[L].seed, seedingRight: f.teams[R].seed,
    mapInfo: entries.slice(first, first + 3),
  };
}

/** The tool settings the schedule sets over the observer's: the fixture's own, seeding and the series. */
export function scheduledTools(f: Fixture, sides: Sides): Record<string, unknown> {
  return {
    ...f.toolsData,
    seedingInfo: { left: f.teams[sides[0]].seed, right: f.teams[sides[1]].seed },
    seriesInfo: seriesInfo(f, sides),
  };
}

/** Riot IDs compare without case and without spaces around the `#` (the game shows "name #tag"). */
export function riotKey(id: string): string {
  return id.replace(/\s*#\s*/, '#').trim().toLowerCase();
}

/**
 * Which fixture team each side's players are: for each side, the team more than half of whose
 * players are listed for it (null: not judged yet, fewer than 3 players, or no such team).
 */
export function sideTeams(f: Fixture, players: readonly [readonly string[], readonly string[]]): [0 | 1 | null, 0 | 1 | null] {
  const lists = f.teams.map((t) => new Set(t.players.map(riotKey)));
  return players.map((ids) => {
    if (ids.length < 3) return null;
    const keys = ids.map(riotKey);
    for (const t of [0, 1] as const) if (keys.filter((k) => lists[t].has(k)).length * 2 > keys.length) return t;
    return null;
  }) as [0 | 1 | null, 0 | 1 | null];
}
