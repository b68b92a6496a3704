// The series rules of docs/fixtures.md 3–4 on their own (src/main/schedule/series.ts): seriesInfo's
// counts and mapInfo for best of 1, 3 and 5 with the teams on either side, the decided series, and
// which scheduled team each side's players are.
import { describe, expect, it } from 'vitest';
import { decided, seriesInfo, sideTeams, status, wins } from '../../../src/main/schedule/series.js';
import type { Fixture, MapResult } from '../../../src/main/schedule/fixture-store.js';
import { sampleFixture } from './fixture-store.contract.js';

const result = (map: string, a: number, b: number): MapResult => ({ map, scores: [a, b], winner: a > b ? 0 : 1 });
const bo5 = (results: MapResult[]): Fixture => sampleFixture('BO5', {
  bestOf: 5, results,
  maps: [{ name: 'Bind', pick: 0 }, { name: 'Haven', pick: 1 }, { name: 'Split', pick: 0 }, { name: 'Lotus', pick: 1 }, { name: 'Pearl', pick: null }],
});
const [A, B] = ['https://cdn.example.org/alpha.png', 'https://cdn.example.org/bravo.png'];

describe('the series rules', () => {
  it('a best of 1 has no map list; one map decides it', () => {
    const f = sampleFixture('BO1', { bestOf: 1 });
    expect(seriesInfo(f, [0, 1])).toMatchObject({ needed: 1, wonLeft: 0, wonRight: 0, mapInfo: [] });
    const done = { ...f, results: [result('Ascent', 13, 8)] };
    expect(decided(done)).toBe(true);
    expect(status(done)).toBe('finished');
    expect(status({ ...done, reopened: true })).toBe('upcoming');
  });

  it('a best of 5 shows the three maps around the present one, scores and logos on this map\'s sides', () => {
    expect(seriesInfo(bo5([]), [0, 1]).mapInfo).toEqual([
      { type: 'present', logo: A }, { type: 'future', map: 'Haven', logo: B }, { type: 'future', map: 'Split', logo: A },
    ]);
    const two = bo5([result('Bind', 13, 5), result('Haven', 9, 13)]);
    expect(seriesInfo(two, [1, 0])).toMatchObject({ needed: 3, wonLeft: 1, wonRight: 1 });
    expect(seriesInfo(two, [1, 0]).mapInfo).toEqual([
      { type: 'past', map: 'Haven', left: { score: 13, logo: B }, right: { score: 9, logo: A } },
      { type: 'present', logo: A },
      { type: 'future', map: 'Lotus', logo: B },
    ]);
    const four = bo5([result('Bind', 13, 5), result('Haven', 9, 13), result('Split', 13, 11), result('Lotus', 3, 13)]);
    expect(seriesInfo(four, [0, 1]).mapInfo).toEqual([
      { type: 'past', map: 'Split', left: { score: 13, logo: A }, right: { score: 11, logo: B } },
      { type: 'past', map: 'Lotus', left: { score: 3, logo: A }, right: { score: 13, logo: B } },
      { type: 'present', logo: '' },
    ]);
    expect(wins(four)).toEqual([2, 2]);
    expect(decided(four)).toBe(false);
    expect(decided(bo5([...four.results, result('Pearl', 13, 10)]))).toBe(true);
  });

  it('a reopened series shows its extra map as the present one, after the maps played', () => {
    const bo3 = sampleFixture('BO3', {
      bestOf: 3, reopened: true,
      maps: [{ name: 'Bind', pick: 0 }, { name: 'Haven', pick: 1 }, { name: 'Split', pick: null }],
      results: [result('Bind', 13, 5), result('Haven', 9, 13), result('Split', 13, 11)],
    });
    expect(decided(bo3)).toBe(true);
    expect(seriesInfo(bo3, [1, 0])).toMatchObject({ needed: 2, wonLeft: 1, wonRight: 2 });
    expect(seriesInfo(bo3, [1, 0]).mapInfo).toEqual([
      { type: 'past', map: 'Haven', left: { score: 13, logo: B }, right: { score: 9, logo: A } },
      { type: 'past', map: 'Split', left: { score: 11, logo: B }, right: { score: 13, logo: A } },
      { type: 'present', logo: '' },
    ]);
  });

  it('a side is the team more than half of whose players are listed for it, judged from 3 players', () => {
    const f = sampleFixture('SIDES', {});
    f.teams[0].players = ['a1#EUW', 'a2#EUW', 'a3#EUW', 'a4#EUW', 'a5#EUW'];
    f.teams[1].players = ['b1#EUW', 'b2#EUW', 'b3#EUW', 'b4#EUW', 'b5#EUW'];
    expect(sideTeams(f, [['B1 #euw', 'b2#EUW', 'b3#EUW'], ['a1#EUW', 'a2#EUW']])).toEqual([1, null]);
    expect(sideTeams(f, [['b1#EUW', 'b2#EUW', 'sub#EUW', 'b4#EUW', 'b5#EUW'], ['a1#EUW', 'x#1', 'y#2', 'a4#EUW', 'a5#EUW']])).toEqual([1, 0]);
    expect(sideTeams(f, [['x#1', 'y#2', 'z#3'], ['a1#EUW', 'a2#EUW', 'a3#EUW']])).toEqual([null, 0]);
  });
});
