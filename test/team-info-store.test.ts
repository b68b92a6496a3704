// The team-info store (TeamInfoStore port, memory adapter src/main/stores/team-info.ts): a match's
// teams from its creation, the post-match members after its end (match-rules 2.5, 14.2, 14.3),
// TEAM_INFO_TTL_MS after the last write, checked on read, freed by the periodic cleanup. Over
// HTTP with the real service: test/rest-lifecycle.test.ts, test/match-lifecycle.test.ts.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MemoryTeamInfoStore } from '../src/main/stores/team-info.js';

const TTL = 2000;
const CLEANUP = 200;
const leftTeam = { name: 'L', tricode: 'L', url: 'https://img.example/l.png', attackStart: true };
const rightTeam = { name: 'R', tricode: 'R', url: 'https://img.example/r.png', attackStart: false };
const final = { higherScore: 1 as const, tournamentInfo: { name: 'T' }, sponsorInfo: { sponsors: [] }, isSupporter: true };

let stores: MemoryTeamInfoStore[] = [];
const store = () => {
  const s = new MemoryTeamInfoStore({ ttlMs: TTL, cleanupMs: CLEANUP, now: () => Date.now() });
  stores.push(s);
  return s;
};

beforeEach(() => { vi.useFakeTimers({ now: 7_000_000 }); });
afterEach(() => {
  for (const s of stores) s.close();
  stores = [];
  vi.useRealTimers();
});

describe('team info store', () => {
  it('expires TTL after the last write (checked on read); setFinal adds the post-match members and restarts the life', () => {
    const s = store();
    s.set('FINAL1', { leftTeam, rightTeam });
    s.set('PLAIN1', { leftTeam, rightTeam });
    expect(s.get('FINAL1')).toEqual({ leftTeam, rightTeam });
    vi.setSystemTime(Date.now() + 1000); // no timer runs: expiry on read only
    s.setFinal('FINAL1', final);
    vi.setSystemTime(Date.now() + TTL - 1000 + 150); // PLAIN1's life is over, FINAL1's new one is not
    expect(s.get('PLAIN1')).toBeUndefined();
    expect(s.get('FINAL1')).toEqual({ leftTeam, rightTeam, ...final });
    vi.setSystemTime(Date.now() + 1000);
    expect(s.get('FINAL1')).toBeUndefined();
  });

  it('the cleanup frees expired entries without reads', () => {
    const s = store();
    s.set('A', { leftTeam, rightTeam });
    s.set('B', { leftTeam, rightTeam });
    expect(s.held).toBe(2);
    vi.advanceTimersByTime(TTL - CLEANUP);
    expect(s.held).toBe(2);
    vi.advanceTimersByTime(CLEANUP);
    expect(s.held).toBe(0);
  });

  it('set replaces an entry and drops its post-match members; setFinal recreates an expired entry only when given the teams', () => {
    const s = store();
    s.set('REPL22', { leftTeam, rightTeam });
    s.setFinal('REPL22', { higherScore: 0, tournamentInfo: {}, sponsorInfo: {}, isSupporter: false });
    s.set('REPL22', { leftTeam: rightTeam, rightTeam: leftTeam });
    expect(s.get('REPL22')).toEqual({ leftTeam: rightTeam, rightTeam: leftTeam });

    s.setFinal('GONE01', { higherScore: 0, tournamentInfo: {}, sponsorInfo: {}, isSupporter: false });
    expect(s.get('GONE01')).toBeUndefined();
    s.setFinal('GONE01', { higherScore: 0, tournamentInfo: {}, sponsorInfo: {}, isSupporter: false, leftTeam, rightTeam });
    expect(s.get('GONE01')).toEqual({ leftTeam, rightTeam, higherScore: 0, tournamentInfo: {}, sponsorInfo: {}, isSupporter: false });
    expect(s.size()).toBe(2);
  });

  it('setFinal keeps the teams of the entry it completes, not the ones it is given', () => {
    const s = store();
    s.set('KEEP01', { leftTeam, rightTeam });
    s.setFinal('KEEP01', { ...final, leftTeam: rightTeam, rightTeam: leftTeam });
    expect(s.get('KEEP01')).toEqual({ leftTeam, rightTeam, ...final });
  });

  it('size() counts live entries only', () => {
    const s = store();
    s.set('A', { leftTeam, rightTeam });
    vi.setSystemTime(Date.now() + 1000);
    s.set('B', { leftTeam, rightTeam });
    vi.setSystemTime(Date.now() + 1000); // A expired, no cleanup ran
    expect(s.held).toBe(2);
    expect(s.size()).toBe(1);
  });
});
