// FixtureStore: group code → a scheduled fixture (README, "A day's schedule"; docs/fixtures.md):
// both teams, the series format, the tool settings, and the series as the service keeps it (each
// finished map's result, the map being played). Operator data: it outlives the process (the
// embedded default writes DATA_DIR/fixtures.json atomically; Redis shares it between nodes).
//
// Asynchronous: a shared adapter answers over the network. Writes are atomic: `add` applies a whole
// upload or nothing (a code already stored, or the bound passed, refuses all of it); `update` is a
// compare-and-set on the stored text, retried by the caller's function (FixtureStore users read,
// change, write: the series keeper at a logon and at a map's end, the admin routes).
// Adapters: schedule/adapters/data-dir/fixture-store.ts, schedule/adapters/redis/fixture-store.ts.
// Contract: test/main/schedule/fixture-store.contract.ts.

export interface FixtureTeam {
  name: string;
  tricode: string;
  /** Logo URL. */
  url: string;
  /** Seeding text ('' when none): the overlay's seedingInfo / seriesInfo.seedingLeft/Right. */
  seed: string;
  /** Riot IDs `name#tag` of the team's players ([]: the sides are not checked against the game's roster). */
  players: string[];
}

/** A map of the series (the veto): its display name and which team picked it (index into `teams`; null: the decider or unknown). */
export interface FixtureMap {
  name: string;
  pick: 0 | 1 | null;
}

/** One finished map, in the fixture's team order. */
export interface MapResult {
  map: string;
  scores: [number, number];
  /** Index into `teams`. */
  winner: 0 | 1;
  /** Set by an operator's correction (the admin token's id). */
  correctedBy?: string;
}

/** The map being played now: which fixture team is on the overlay's left and right, and what is flagged. */
export interface LiveMap {
  /** sides[0]: the fixture team shown left; sides[1]: right. */
  sides: [0 | 1, 1 | 0];
  /** Why the match is flagged: `team_names` (the observer typed other names), `players` (the game's players are not the fixture's). */
  flags: string[];
  startedAt: number;
}

export interface Fixture {
  groupCode: string;
  teams: [FixtureTeam, FixtureTeam];
  bestOf: 1 | 3 | 5;
  maps: FixtureMap[];
  /** Tool settings the fixture gives (tournamentInfo, sponsorInfo, roundWinBox, …): they win over the observer's. */
  toolsData: Record<string, unknown>;
  /** Planned start, epoch ms; null when not given. */
  startsAt: number | null;
  /** Only keys of this organisation may observe it; null: any valid key. */
  organizationId: string | null;
  results: MapResult[];
  live: LiveMap | null;
  /** The operator reopened a finished series: one more map may be played. */
  reopened: boolean;
  createdAt: number;
  updatedAt: number;
}

export type FixtureAdd = { ok: true } | { ok: false; reason: 'exists'; groupCode: string } | { ok: false; reason: 'full'; max: number };

export interface FixtureStore {
  /** Stores every fixture, or none: none when one's code is stored already or the count would pass `max`. */
  add(fixtures: readonly Fixture[], max: number): Promise<FixtureAdd>;
  get(groupCode: string): Promise<Fixture | undefined>;
  /** Every stored fixture (any order). */
  list(): Promise<Fixture[]>;
  /**
   * Read-modify-write of one fixture, atomic: `change` gets the stored fixture and returns the new
   * one (null: delete it; undefined: leave it). Retried when another writer changed it meanwhile.
   * Resolves with what is stored afterwards (undefined: no such fixture, or deleted).
   */
  update(groupCode: string, change: (current: Fixture) => Fixture | null | undefined): Promise<Fixture | undefined>;
  /** A number that changes whenever any fixture is added, changed or deleted (a reader lists again only then). */
  revision(): Promise<number>;
  /** Stops the adapter's own timers and files. */
  close(): void;
}
