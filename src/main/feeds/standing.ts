// What a code's feeds answer when it has no live match (README, "Feeds for graphics systems";
// docs/feeds.md, "Between matches"), so that a vMix title bound to them does not go blank:
// - for FEEDS_FINAL_HOLD_MS after its match ended, the match's final state: the last frame, handed
//   over by the node that ran it as the match is removed (`ended`), or, on a node that only served the
//   code's feeds (REDIS_URL), the last tables it served (`served`), counted from the first poll that
//   found the match gone;
// - else, when the code is scheduled (schedule/), the fixture's teams with their players, the next
//   map and the series score, not running (`isRunning: false`, round 0).
// The tables are made once per final frame or fixture state (FeedCache, keyed by an object kept here).
import type { FeedCache } from './cache.js';
import type { MatchData } from './tables.js';

/** A fixture as the schedule gives it (schedule/keeper.ts, ScheduledFeed): teams[0] on the left. */
export interface FixtureFeed {
  map: string;
  teams: [{ name: string; tricode: string; url: string; players: string[] }, { name: string; tricode: string; url: string; players: string[] }];
  seriesWon: [number, number];
}

export interface StandingDeps {
  cache: FeedCache;
  /** How long a match's final state is answered after it ended (0: not at all). */
  holdMs: number;
  /** The code's fixture, when it is scheduled. */
  fixture?: (groupCode: string) => FixtureFeed | undefined;
  now?: () => number;
}

const PRUNE_EVERY_MS = 60_000;

/** `polled`: served again since `seenAt` was last set (a poll does not read the clock: the next prune does). */
interface Final { key: object; endedAt: number | null; seenAt: number; polled: boolean }

export class StandingFeeds {
  /** Per code: its ended match's final tables (endedAt set), or the last tables served while it ran (endedAt null). */
  private readonly finals = new Map<string, Final>();
  /** Per scheduled code: the tables of its fixture, by the fixture's text (new tables only when it changed). */
  private readonly fixtures = new Map<string, { text: string; key: object }>();
  private readonly now: () => number;
  private prunedAt = 0;

  constructor(private readonly deps: StandingDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The code's match was removed here; its last frame's match_data JSON. */
  ended(groupCode: string, matchDataJson: string): void {
    if (this.deps.holdMs <= 0) return;
    const key = {};
    this.deps.cache.load(key, matchDataJson);
    const now = this.now();
    this.finals.set(groupCode, { key, endedAt: now, seenAt: now, polled: false });
    this.prune();
  }

  /** The tables a poll of a live match was answered with (kept in case this node does not run it and it ends). */
  served(groupCode: string, key: object): void {
    if (this.deps.holdMs <= 0) return;
    const kept = this.finals.get(groupCode);
    if (kept?.key === key && kept.endedAt === null) {
      kept.polled = true;
      return;
    }
    const now = this.now();
    this.finals.set(groupCode, { key, endedAt: null, seenAt: now, polled: false });
    if (now - this.prunedAt >= PRUNE_EVERY_MS) this.prune();
  }

  /** The tables to answer for a code without a live match, or undefined (404). */
  lookup(groupCode: string): object | undefined {
    const final = this.finals.get(groupCode);
    if (final) {
      const now = this.now();
      final.endedAt ??= now;
      if (now - final.endedAt < this.deps.holdMs) return final.key;
      this.finals.delete(groupCode);
    }
    const fixture = this.deps.fixture?.(groupCode);
    if (!fixture) {
      this.fixtures.delete(groupCode);
      return undefined;
    }
    const text = JSON.stringify(fixtureMatchData(groupCode, fixture));
    const kept = this.fixtures.get(groupCode);
    if (kept?.text === text) return kept.key;
    const key = {};
    this.deps.cache.load(key, text);
    this.fixtures.set(groupCode, { text, key });
    return key;
  }

  /**
   * The finals past the hold go (at each end, and at most every minute on a poll of new tables): what
   * stays was polled or ended within it. A poll since the last prune counts as seen now (an entry may
   * stay one prune interval longer than its last poll: what it costs is one entry's memory).
   */
  private prune(): void {
    const now = (this.prunedAt = this.now());
    for (const [code, f] of this.finals) {
      if (f.polled) {
        f.seenAt = now;
        f.polled = false;
      }
      if (now - (f.endedAt ?? f.seenAt) >= this.deps.holdMs) this.finals.delete(code);
    }
  }
}

/** A fixture as a frame the feeds read: its teams on their sides, their players by Riot ID (`name#tag`), nothing running. */
function fixtureMatchData(groupCode: string, f: FixtureFeed): MatchData {
  return {
    groupCode, matchId: '', matchType: '', map: f.map, isRunning: false, roundNumber: 0, roundPhase: '',
    teams: f.teams.map((t) => ({
      teamName: t.name, teamTricode: t.tricode, teamUrl: t.url, roundsWon: 0,
      players: t.players.map((riotId) => {
        const hash = riotId.lastIndexOf('#');
        return hash < 0 ? { name: riotId } : { name: riotId.slice(0, hash), tagline: riotId.slice(hash + 1) };
      }),
    })),
    tools: { seriesInfo: { wonLeft: f.seriesWon[0], wonRight: f.seriesWon[1] } },
    serverTime: 0,
  };
}
