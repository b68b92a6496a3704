// The series keeper (docs/fixtures.md): the schedule at an observer's logon, the game's roster
// against the fixture's players, each finished map's result, and the operator's view of it all.
//
// - A logon to a scheduled code (not live): refused when the series is over (unless reopened) or
//   the key's organisation is not the fixture's; otherwise the logon's teams, logos and tool
//   settings become the fixture's (the sides from the names the observer typed, when they are the
//   fixture's), with seriesInfo for this map. Typed names other than the fixture's flag the match.
// - The roster (name#tag per side, from the shard when it grows): where the fixture lists players,
//   the side more than half of whose players are a team's is that team; when that is the other way
//   round from the logon, the shard gets the teams and the series the right way round. A side of 3
//   or more players that is no team's flags the match (`players`).
// - game_end: the map's result (the shard's `map_result`, the bus's mapFinished) is recorded in the
//   fixture's order, once (only while its map is live); the next logon's seriesInfo follows.
//
// Nothing here runs per message: a logon, a roster change (≤ 10 per map), a map's end. Every
// change of one fixture is queued behind the previous one (`chain`), so they apply in order.
import type { ObsLogonPacket } from '../../schemas/logon.js';
import type { MainEventBus } from '../base/events.js';
import type { Logger } from '../base/log.js';
import { isRehearsal, type MatchDirectory, type MatchRouting } from '../matches/index.js';
import type { Fixture, FixtureStore, LiveMap } from './fixture-store.js';
import type { TeamInfoStore } from '../previews/index.js';
import { FIXTURE_JOB_RETRY_FOR_MS, FIXTURES_REFRESH_MS } from './limits.js';
import { sameName } from './parse.js';
import { decided, logonTeam, scheduledTools, sideTeams, wins, type Sides } from './series.js';

export interface KeeperDeps {
  log: Logger;
  store: FixtureStore;
  events: MainEventBus;
  /** The match's shard gets the teams put on the other sides through routing (matches/routing.ts). */
  routing: Pick<MatchRouting, 'schedule'>;
  directory: MatchDirectory;
  teamInfo: TeamInfoStore;
  /** Other nodes change the store too (Redis): the view is read again every FIXTURES_REFRESH_MS. */
  shared: boolean;
}

export type Planned =
  | { kind: 'none' }
  | { kind: 'refused'; reason: string }
  | { kind: 'scheduled'; packet: ObsLogonPacket; live: LiveMap };

/** What the feeds show of a fixture before its match (and between its maps). */
export interface ScheduledFeed {
  map: string;
  teams: [ScheduledFeedTeam, ScheduledFeedTeam];
  /** Maps won by teams[0] and teams[1]. */
  seriesWon: [number, number];
  bestOf: number;
}
export interface ScheduledFeedTeam { name: string; tricode: string; url: string; players: string[] }

export class FixtureKeeper {
  private readonly log: Logger;
  /** Every fixture as last read or written by this process (the dashboard, the gauge, team info before the game). */
  private view = new Map<string, Fixture>();
  /** The store's revision the view was read at (-1: never). */
  private revision = -1;
  private readonly chains = new Map<string, Promise<unknown>>();
  private closed = false;
  /** `code|startedAt|flag` already logged (a flag is logged once per map). */
  private readonly logged = new Set<string>();
  private readonly timer: NodeJS.Timeout | null;
  private readonly unsubscribe: Array<() => void>;

  constructor(private readonly deps: KeeperDeps) {
    this.log = deps.log.child({ module: 'fixtures' });
    this.unsubscribe = [
      deps.events.on('rosterSeen', ({ groupCode, sides }) => this.queue(groupCode, () => this.onRoster(groupCode, sides))),
      deps.events.on('mapFinished', ({ groupCode, map, scores }) => this.queue(groupCode, () => this.onMapFinished(groupCode, map, scores))),
      deps.events.on('matchGone', ({ groupCode }) => this.queue(groupCode, () => this.onGone(groupCode))),
    ];
    this.timer = deps.shared ? setInterval(() => void this.refresh(), FIXTURES_REFRESH_MS) : null;
    this.timer?.unref();
  }

  get store(): FixtureStore {
    return this.deps.store;
  }

  /** Reads every fixture into the view (at start; with Redis every FIXTURES_REFRESH_MS when the store's revision moved). */
  async refresh(): Promise<void> {
    try {
      const revision = await this.deps.store.revision();
      if (revision === this.revision) return;
      const all = await this.deps.store.list();
      this.view = new Map(all.map((f) => [f.groupCode, f]));
      this.revision = revision;
    } catch (err) {
      this.log.warn({ error: (err as Error).message }, 'fixtures not read');
    }
  }

  /** Whether the code is scheduled (as far as the view knows). */
  scheduled(groupCode: string): boolean {
    return this.view.has(groupCode);
  }

  /** What this process wrote or read last of one fixture goes into the view. */
  remember(groupCode: string, fixture: Fixture | undefined): void {
    if (fixture) this.view.set(groupCode, fixture);
    else this.view.delete(groupCode);
  }

  /** The match's flags when its code is scheduled and live with a mismatch (dashboard rows, GET /admin/matches). */
  flagsOf(groupCode: string): string[] | undefined {
    const flags = this.view.get(groupCode)?.live?.flags;
    return flags && flags.length > 0 ? flags : undefined;
  }

  /** Live scheduled matches flagged (the gauge ods_fixture_mismatches). */
  mismatches(): number {
    let n = 0;
    for (const f of this.view.values()) if (f.live && f.live.flags.length > 0) n++;
    return n;
  }

  /** GET /getTeamInfoForCode before the game: the fixture's teams (team 1 left). */
  teamInfoFor(groupCode: string): { leftTeam: unknown; rightTeam: unknown } | undefined {
    const f = this.view.get(groupCode);
    return f ? { leftTeam: logonTeam(f.teams[0], true), rightTeam: logonTeam(f.teams[1], false) } : undefined;
  }

  /** The feeds of a scheduled code without a live match (feeds/standing.ts): its teams (team 1 left), players, next map and series score. */
  feedFixtureFor(groupCode: string): ScheduledFeed | undefined {
    const f = this.view.get(groupCode);
    if (!f) return undefined;
    const won = wins(f);
    const team = (t: Fixture['teams'][number]) => ({ name: t.name, tricode: t.tricode, url: t.url, players: t.players });
    return { map: f.maps[f.results.length]?.name ?? '', teams: [team(f.teams[0]), team(f.teams[1])], seriesWon: won, bestOf: f.bestOf };
  }

  /** An observer logon with a valid key (`organizationId`: the key's, '' for none). */
  async plan(packet: ObsLogonPacket, organizationId: string): Promise<Planned> {
    const code = packet.groupCode;
    const record = this.deps.directory.get(code);
    if (record && !isRehearsal(record)) return { kind: 'none' }; // a reconnection or a live code: nothing changes
    const f = await this.deps.store.get(code);
    this.remember(code, f);
    if (!f) return { kind: 'none' };
    if (f.organizationId !== null && f.organizationId !== organizationId) {
      return { kind: 'refused', reason: `Group code ${code} is scheduled for another organisation. Use one of its access keys.` };
    }
    if (decided(f) && !f.reopened) {
      const [a, b] = wins(f);
      return { kind: 'refused', reason: `The series on group code ${code} is over (${f.teams[0].name} ${a}–${b} ${f.teams[1].name}). An operator can reopen it.` };
    }
    const left = f.teams.findIndex((t) => sameName(t.name, packet.leftTeam.name));
    const right = f.teams.findIndex((t) => sameName(t.name, packet.rightTeam.name));
    let sides: Sides = [0, 1];
    if (left >= 0 && right !== left) sides = left === 0 ? [0, 1] : [1, 0];
    else if (right >= 0) sides = right === 1 ? [0, 1] : [1, 0];
    const typedOther = (left < 0 && packet.leftTeam.name.trim() !== '') || (right < 0 && packet.rightTeam.name.trim() !== '') || (left >= 0 && left === right);
    const live: LiveMap = { sides, flags: typedOther ? ['team_names'] : [], startedAt: Date.now() };
    const tools = packet.toolsData !== null && typeof packet.toolsData === 'object' && !Array.isArray(packet.toolsData) ? packet.toolsData : {};
    return {
      kind: 'scheduled',
      live,
      packet: {
        ...packet,
        leftTeam: logonTeam(f.teams[sides[0]], packet.leftTeam.attackStart === true),
        rightTeam: logonTeam(f.teams[sides[1]], packet.rightTeam.attackStart === true),
        toolsData: { ...tools, ...scheduledTools(f, sides) },
      },
    };
  }

  /** The planned logon created its match: the fixture is live. */
  started(groupCode: string, live: LiveMap, typed: { left: string; right: string }): void {
    this.queue(groupCode, async () => {
      const f = await this.deps.store.update(groupCode, (cur) => ({ ...cur, live, updatedAt: Date.now() }));
      this.remember(groupCode, f);
      if (!f) return;
      this.log.info({ groupCode, map: f.results.length + 1, left: f.teams[live.sides[0]].name, right: f.teams[live.sides[1]].name }, 'scheduled match started');
      if (live.flags.includes('team_names')) this.flagged(f, 'team_names', { typedLeft: typed.left, typedRight: typed.right });
    });
  }

  private async onRoster(groupCode: string, players: [string[], string[]]): Promise<void> {
    if (!this.view.get(groupCode)?.live) return; // not a scheduled map (started() or the refresh put a live one in the view)
    const f = await this.deps.store.get(groupCode);
    if (!f?.live || f.teams.some((t) => t.players.length === 0)) return;
    const ids = sideTeams(f, players);
    let sides: Sides | null = null;
    if (ids[0] !== null && ids[1] !== ids[0]) sides = ids[0] === 0 ? [0, 1] : [1, 0];
    else if (ids[1] !== null && ids[0] === null) sides = ids[1] === 1 ? [0, 1] : [1, 0];
    const wrongPlayers = players.some((p, i) => p.length >= 3 && ids[i] === null) || (ids[0] !== null && ids[0] === ids[1]);
    const swap = sides !== null && sides[0] !== f.live.sides[0];
    const flags = [...f.live.flags.filter((x) => x !== 'players'), ...(wrongPlayers ? ['players'] : [])];
    if (!swap && flags.join() === f.live.flags.join()) return;
    const live: LiveMap = { ...f.live, sides: swap ? sides! : f.live.sides, flags };
    const stored = await this.deps.store.update(groupCode, (cur) => (cur.live?.startedAt === f.live!.startedAt ? { ...cur, live, updatedAt: Date.now() } : undefined));
    this.remember(groupCode, stored);
    if (!stored?.live || stored.live.startedAt !== live.startedAt) return;
    if (wrongPlayers) this.flagged(stored, 'players', { left: players[0], right: players[1] });
    if (!swap) return;
    const [L, R] = live.sides;
    const teams = [f.teams[L], f.teams[R]].map((t) => ({ name: t.name, tricode: t.tricode, url: t.url })) as [{ name: string; tricode: string; url: string }, { name: string; tricode: string; url: string }];
    // Only what follows the sides: the fixture's other settings went through the logon's rules (the supporter rules among them).
    const { seedingInfo, seriesInfo } = scheduledTools(f, live.sides);
    this.deps.routing.schedule(groupCode, teams, { seedingInfo, seriesInfo }); // none when this process does not run the match
    const info = await this.deps.teamInfo.get(groupCode);
    const attack = (t: unknown) => (t as { attackStart?: unknown } | null)?.attackStart === true;
    await this.deps.teamInfo.set(groupCode, { leftTeam: logonTeam(f.teams[L], attack(info?.leftTeam)), rightTeam: logonTeam(f.teams[R], attack(info?.rightTeam)) });
    this.log.info({ groupCode, left: f.teams[L].name, right: f.teams[R].name }, 'scheduled teams put on the sides the game\'s roster shows');
  }

  private async onMapFinished(groupCode: string, map: string, scores: [number, number]): Promise<void> {
    const f = await this.deps.store.update(groupCode, (cur) => {
      if (!cur.live) return undefined;
      const byTeam: [number, number] = [0, 0];
      byTeam[cur.live.sides[0]] = scores[0];
      byTeam[cur.live.sides[1]] = scores[1];
      const winner = scores[0] > scores[1] ? cur.live.sides[0] : cur.live.sides[1];
      const name = cur.maps[cur.results.length]?.name || map;
      return { ...cur, results: [...cur.results, { map: name, scores: byTeam, winner }], live: null, reopened: false, updatedAt: Date.now() };
    });
    this.remember(groupCode, f);
    if (!f) return;
    const [a, b] = wins(f);
    this.log.info({ groupCode, map: f.results.length, result: f.results[f.results.length - 1], series: `${a}-${b}`, decided: decided(f) }, decided(f) ? 'series decided' : 'map result recorded');
  }

  /** The match is gone (ended, force-ended, idle, lost): a map that did not finish is not live any more. */
  private async onGone(groupCode: string): Promise<void> {
    if (!this.view.get(groupCode)?.live) return;
    const f = await this.deps.store.update(groupCode, (cur) => (cur.live ? { ...cur, live: null, updatedAt: Date.now() } : undefined));
    this.remember(groupCode, f);
  }

  private flagged(f: Fixture, flag: string, detail: Record<string, unknown>): void {
    const key = `${f.groupCode}|${f.live?.startedAt ?? 0}|${flag}`;
    if (this.logged.has(key)) return;
    this.logged.add(key);
    if (this.logged.size > 10_000) this.logged.clear();
    const what = flag === 'players' ? 'the game\'s players are not the fixture\'s' : 'the observer typed other team names than the fixture\'s';
    this.log.warn({ groupCode: f.groupCode, flag, teams: f.teams.map((t) => t.name), ...detail }, `scheduled match flagged: ${what}`);
  }

  /**
   * The game's own changes (a map started, its roster, its result, its end): run after the
   * fixture's previous job; errors logged, never thrown. A job that failed (the store did not
   * answer: a map result must not be lost to a Redis blip) is run again, 1 s doubling to 30 s, for
   * FIXTURE_JOB_RETRY_FOR_MS; every job re-reads the fixture and checks it is still due (a result is
   * recorded only while its map is live), so running one again is safe.
   */
  queue(groupCode: string, job: () => Promise<unknown>): Promise<unknown> {
    const retried = async (): Promise<void> => {
      const since = Date.now();
      for (let failures = 0; ; failures++) {
        try {
          await job();
          return;
        } catch (err) {
          if (this.closed || Date.now() - since >= FIXTURE_JOB_RETRY_FOR_MS) throw err;
          if (failures === 0) this.log.warn({ groupCode, error: (err as Error).message }, 'fixture update failed (retried)');
          await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 1000 * 2 ** failures)).unref());
        }
      }
    };
    return this.run(groupCode, retried).catch((err: Error) => {
      this.log.error({ groupCode, error: err.message }, 'fixture not updated');
    });
  }

  /**
   * An operator's change: run after the fixture's previous job, once; its rejection (the store did
   * not answer) is the caller's, never "no fixture" (the admin route answers 503).
   */
  run<T>(groupCode: string, job: () => Promise<T>): Promise<T> {
    const result = (this.chains.get(groupCode) ?? Promise.resolve()).then(job);
    const next = result.then(() => undefined, () => undefined);
    this.chains.set(groupCode, next);
    void next.then(() => { if (this.chains.get(groupCode) === next) this.chains.delete(groupCode); });
    return result;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    for (const off of this.unsubscribe) off();
  }
}
