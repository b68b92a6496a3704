// The schedule kept in step with each linked bracket (docs/brackets.md, "Sets become fixtures"): every
// BRACKETS_POLL_MS (backing off on errors, doubling up to BRACKETS_RETRY_MAX_MS) the bracket's
// matches that are ready or in progress are read (platform.ts), and
// - a match whose two sides are known and that has no fixture gets one, with a generated group code;
// - a match whose sides, players, logos or best-of changed changes its fixture, unless its series is
//   being played (a map live or played): then the fixture is kept and the change flagged
//   (`bracket_changed`, with what changed), never applied;
// - a match the bracket no longer has removes its fixture when nothing was played; when its series
//   was played and is not decided it is flagged (`set_dropped`); a decided one (the platform took
//   our report and completed it) stays as it is.
// One read of a link at a time, on the node that leads (brackets.ts); its state (last and next read,
// errors) is kept with the links after each read (GET /admin/brackets on any node, the dashboard).
import type { Logger } from '../base/log.js';
import type { MatchDirectory } from '../matches/index.js';
import { buildFixtures, decided, FIXTURES_MAX_STORED, UploadError, type Fixture, type FixtureKeeper } from '../schedule/index.js';
import { emptyReport, type BracketLink, type BracketStore, type LinkedSet, type SyncState } from './bracket-store.js';
import type { BracketPlatform, BracketSet } from './platform.js';

export interface SyncDeps {
  log: Logger;
  store: BracketStore;
  keeper: FixtureKeeper;
  directory: MatchDirectory;
  platforms: ReadonlyMap<string, BracketPlatform>;
  pollMs: number;
  retryMaxMs: number;
  /** A linked match's fixture changed or went: the reporter looks again. */
  changed: () => void;
}

interface Runner { state: SyncState; timer: NodeJS.Timeout | undefined; running: boolean; again: boolean }

export class BracketSync {
  private readonly runners = new Map<string, Runner>();
  private readonly log: Logger;
  private closed = false;

  constructor(private readonly deps: SyncDeps) {
    this.log = deps.log.child({ module: 'brackets' });
  }

  /** The links this node reads. */
  watched(): string[] {
    return [...this.runners.keys()];
  }

  /** Starts reading a link now, and every BRACKETS_POLL_MS after. */
  watch(linkId: string): void {
    if (this.runners.has(linkId) || this.closed) return;
    this.runners.set(linkId, { state: { lastSyncAt: null, nextSyncAt: Date.now(), lastError: null, errors: 0, sets: 0, requests: 0 }, timer: undefined, running: false, again: false });
    this.now(linkId);
  }

  unwatch(linkId: string): void {
    clearTimeout(this.runners.get(linkId)?.timer);
    this.runners.delete(linkId);
  }

  /** Reads the link at once (after the read under way, if one is). */
  now(linkId: string): void {
    const r = this.runners.get(linkId);
    if (!r) return;
    if (r.running) { r.again = true; return; }
    clearTimeout(r.timer);
    r.running = true;
    void this.run(linkId, r).finally(() => {
      r.running = false;
      if (this.closed || this.runners.get(linkId) !== r) return;
      const delay = r.again ? 0 : r.state.errors === 0 ? this.deps.pollMs : Math.min(this.deps.retryMaxMs, this.deps.pollMs * 2 ** r.state.errors);
      r.again = false;
      r.state.nextSyncAt = Date.now() + delay;
      r.timer = setTimeout(() => this.now(linkId), delay);
      r.timer.unref();
      const state = { ...r.state };
      this.deps.store.update((doc) => (doc.links.some((l) => l.id === linkId) ? { ...doc, syncs: { ...doc.syncs, [linkId]: state } } : undefined))
        .catch((err: Error) => this.log.warn({ linkId, error: err.message }, 'bracket read state not kept'));
    });
  }

  close(): void {
    this.closed = true;
    for (const r of this.runners.values()) clearTimeout(r.timer);
  }

  private async run(linkId: string, r: Runner): Promise<void> {
    try {
      const link = (await this.deps.store.read()).links.find((l) => l.id === linkId);
      if (!link) return this.unwatch(linkId);
      const platform = this.deps.platforms.get(link.platform);
      if (!platform) throw new Error(`no adapter for ${link.platform}`);
      const read = await platform.read(link.target, link.token);
      await this.deps.store.update((doc) => {
        const l = doc.links.find((x) => x.id === linkId);
        if (!l) return undefined;
        l.name = read.name;
        l.stages = read.stages;
        return doc;
      });
      await this.apply(link, read.sets);
      if (r.state.errors > 0) this.log.info({ linkId, platform: link.platform }, 'bracket read again after errors');
      r.state = { ...r.state, lastSyncAt: Date.now(), lastError: null, errors: 0, sets: read.sets.length, requests: read.requests };
    } catch (err) {
      const message = (err as Error).message.slice(0, 300);
      if (r.state.errors === 0 || message !== r.state.lastError) this.log.warn({ linkId, error: message }, 'bracket not read (backing off)');
      r.state = { ...r.state, lastError: message, errors: r.state.errors + 1 };
    }
  }

  /** The bracket's open matches against the linked fixtures of this link. */
  private async apply(link: BracketLink, sets: BracketSet[]): Promise<void> {
    const doc = await this.deps.store.read();
    const known = new Map(Object.values(doc.sets).filter((s) => s.linkId === link.id).map((s) => [s.setId, s]));
    for (const set of sets) {
      const linked = known.get(set.id);
      known.delete(set.id);
      try {
        await this.keep(link, set, linked);
      } catch (err) {
        if (!(err instanceof UploadError)) throw err;
        this.log.warn({ linkId: link.id, setId: set.id, reason: err.message }, 'bracket match not scheduled');
      }
    }
    for (const gone of known.values()) await this.dropped(gone);
  }

  /** The fixture the match asks for (its code given: `code`, or generated). */
  private wanted(set: BracketSet, code: string): Fixture {
    const taken = (c: string) => this.deps.directory.get(c) !== undefined || this.deps.keeper.scheduled(c);
    const teams = set.entrants.map((e) => ({ name: e.name.slice(0, 64), tricode: tricodeOf(e.name), url: e.logo.slice(0, 512), players: e.players }));
    return buildFixtures([{ ...(code ? { groupCode: code } : {}), teams, bestOf: set.bestOf }], () => `set ${set.id}`, (p) => `field ${p}`, taken, Date.now())[0];
  }

  private async keep(link: BracketLink, set: BracketSet, linked: LinkedSet | undefined): Promise<void> {
    const { keeper } = this.deps;
    const entrantIds: [string, string] = [set.entrants[0].id, set.entrants[1].id];
    const meta = { round: set.round, stream: set.stream, station: set.station };
    const current = linked ? await keeper.store.get(linked.groupCode) : undefined;
    if (!linked || !current) {
      // New (or its fixture was deleted by hand: the bracket is the truth, it comes back).
      const f = this.wanted(set, linked?.groupCode ?? '');
      const entry: LinkedSet = linked ?? { groupCode: f.groupCode, linkId: link.id, setId: set.id, entrantIds, ...meta, flags: [], change: '', report: emptyReport() };
      let unlinked = false;
      await this.deps.store.update((doc) => {
        unlinked = !doc.links.some((l) => l.id === link.id); // unlinked meanwhile (on another node)
        return unlinked ? undefined : { ...doc, sets: { ...doc.sets, [f.groupCode]: { ...entry, ...meta, entrantIds } } };
      });
      if (unlinked) return;
      const added = await keeper.store.add([f], FIXTURES_MAX_STORED);
      if (!added.ok) throw new UploadError(added.reason === 'full' ? 'the schedule is full' : `group code ${f.groupCode} is taken`);
      keeper.remember(f.groupCode, f);
      this.log.info({ linkId: link.id, setId: set.id, groupCode: f.groupCode, teams: f.teams.map((t) => t.name), bestOf: f.bestOf }, 'bracket match scheduled');
      return;
    }
    const code = linked.groupCode;
    const next = this.wanted(set, code);
    const same = entrantIds.join() === linked.entrantIds.join() && next.bestOf === current.bestOf
      && JSON.stringify(next.teams) === JSON.stringify(current.teams);
    let flags = linked.flags.filter((f) => f !== 'set_dropped');
    let change = linked.change;
    let ids = linked.entrantIds;
    if (same) {
      flags = flags.filter((f) => f !== 'bracket_changed');
      change = '';
    } else {
      const what = describe(current, next, linked.entrantIds, entrantIds);
      const stored = await keeper.run(code, () => keeper.store.update(code, (cur) => (cur.live || cur.results.length > 0 ? undefined : { ...cur, teams: next.teams, bestOf: next.bestOf, updatedAt: Date.now() })));
      keeper.remember(code, stored);
      if (stored && JSON.stringify(stored.teams) === JSON.stringify(next.teams) && stored.bestOf === next.bestOf) {
        ids = entrantIds;
        flags = flags.filter((f) => f !== 'bracket_changed');
        change = '';
        this.log.info({ linkId: link.id, setId: set.id, groupCode: code, change: what }, 'bracket match changed: fixture changed');
      } else {
        if (!flags.includes('bracket_changed') || change !== what) this.log.warn({ linkId: link.id, setId: set.id, groupCode: code, change: what }, 'bracket match changed while its series is being played: fixture kept, flagged');
        flags = [...new Set([...flags, 'bracket_changed'])];
        change = what;
      }
    }
    const entry: LinkedSet = { ...linked, ...meta, entrantIds: ids, flags, change };
    if (JSON.stringify(entry) !== JSON.stringify(linked)) {
      await this.deps.store.update((doc) => (doc.sets[code] ? { ...doc, sets: { ...doc.sets, [code]: { ...entry, report: doc.sets[code].report } } } : undefined));
      this.deps.changed();
    }
  }

  private async dropped(linked: LinkedSet): Promise<void> {
    const { keeper } = this.deps;
    const code = linked.groupCode;
    const f = await keeper.store.get(code);
    if (f && (f.live || f.results.length > 0)) {
      if (f.live || !decided(f)) {
        if (!linked.flags.includes('set_dropped')) {
          this.log.warn({ linkId: linked.linkId, setId: linked.setId, groupCode: code }, 'bracket no longer has a match whose series is being played: fixture kept, flagged');
          await this.deps.store.update((doc) => (doc.sets[code] ? { ...doc, sets: { ...doc.sets, [code]: { ...doc.sets[code], flags: [...doc.sets[code].flags, 'set_dropped'] } } } : undefined));
        }
      }
      return; // decided: the platform completed it
    }
    if (f) {
      const left = await keeper.run(code, () => keeper.store.update(code, (cur) => (cur.live || cur.results.length > 0 ? undefined : null)));
      keeper.remember(code, left);
      if (left) return; // a map started meanwhile: flagged at the next read
    }
    await this.deps.store.update((doc) => {
      const { [code]: _gone, ...sets } = doc.sets;
      return { ...doc, sets };
    });
    this.log.info({ linkId: linked.linkId, setId: linked.setId, groupCode: code }, 'bracket match dropped: fixture removed');
  }
}

/** Up to 4 letters: the words' initials, or the name's first letters. */
export function tricodeOf(name: string): string {
  const words = name.replace(/[^\p{L}\p{N} ]/gu, ' ').split(/\s+/).filter(Boolean);
  const code = words.length >= 2 ? words.map((w) => w[0]).join('') : (words[0] ?? '').slice(0, 3);
  return code.slice(0, 4).toUpperCase();
}

function describe(current: Fixture, next: Fixture, oldIds: [string, string], newIds: [string, string]): string {
  const parts: string[] = [];
  for (const i of [0, 1] as const) {
    if (oldIds[i] !== newIds[i] || current.teams[i].name !== next.teams[i].name) parts.push(`team ${i + 1}: ${current.teams[i].name} → ${next.teams[i].name}`);
    else if (JSON.stringify(current.teams[i].players) !== JSON.stringify(next.teams[i].players)) parts.push(`team ${i + 1}'s players`);
    else if (current.teams[i].url !== next.teams[i].url) parts.push(`team ${i + 1}'s logo`);
  }
  if (current.bestOf !== next.bestOf) parts.push(`best of ${current.bestOf} → ${next.bestOf}`);
  return parts.join('; ') || 'the match';
}
