// The brackets concern as the composition root opens it (docs/brackets.md): the links (kept in the
// BracketStore with their tokens), their reads (sync.ts) and the reports (reporter.ts), and what the
// admin routes and the dashboard show of them (never a token). Reads and reports run on the node
// that holds the store's lead (one process: always this one; with REDIS_URL one node, renewed every
// third of REDIS_LEASE_TTL_MS, taken over by another within it when that node is gone); every node
// answers the routes.
import { randomBytes } from 'node:crypto';
import type { Logger } from '../base/log.js';
import type { MatchDirectory } from '../matches/index.js';
import { status, wins, type FixtureKeeper } from '../schedule/index.js';
import type { BracketDoc, BracketLink, BracketStore, LinkedSet, ReportMode } from './bracket-store.js';
import type { BracketPlatform, BracketTarget, SetReport } from './platform.js';
import { BracketReporter } from './reporter.js';
import { BracketSync } from './sync.js';

export interface BracketsDeps {
  log: Logger;
  store: BracketStore;
  keeper: FixtureKeeper;
  directory: MatchDirectory;
  /** The platforms' adapters (built by the composition root). */
  platforms: readonly BracketPlatform[];
  pollMs: number;
  retryMs: number;
  retryMaxMs: number;
  /** This node's id (the lead's holder), and the lead's length. */
  nodeId: string;
  leadTtlMs: number;
}

/** At most this many brackets linked at once. */
export const MAX_LINKS = 50;
/** How often the reporter looks whether a fixture changed (a map's end, a correction). */
const REPORT_CHECK_MS = 250;

export class LinkError extends Error {
  constructor(message: string, readonly status = 400) {
    super(message);
  }
}

const parsed = (text: string | null): SetReport | null => (text === null ? null : (JSON.parse(text) as SetReport));

export class Brackets {
  private readonly sync: BracketSync;
  private readonly reporter: BracketReporter;
  private readonly platforms: Map<string, BracketPlatform>;
  private readonly log: Logger;
  private leading = false;
  private readonly leadTimer: NodeJS.Timeout;
  private closed = false;

  private constructor(private readonly deps: BracketsDeps) {
    this.log = deps.log.child({ module: 'brackets' });
    this.platforms = new Map(deps.platforms.map((p) => [p.name, p]));
    this.reporter = new BracketReporter({ log: deps.log, store: deps.store, fixtures: deps.keeper.store, platforms: this.platforms, retryMs: deps.retryMs, retryMaxMs: deps.retryMaxMs, checkMs: REPORT_CHECK_MS });
    this.sync = new BracketSync({ log: deps.log, store: deps.store, keeper: deps.keeper, directory: deps.directory, platforms: this.platforms, pollMs: deps.pollMs, retryMaxMs: deps.retryMaxMs, changed: () => this.reporter.poke() });
    this.leadTimer = setInterval(() => void this.lead(), Math.max(100, Math.floor(deps.leadTtlMs / 3)));
    this.leadTimer.unref();
  }

  /** Opens the concern over its store: when this node leads, every kept link is read at once and every owed report looked at. */
  static async open(deps: BracketsDeps): Promise<Brackets> {
    const b = new Brackets(deps);
    await b.lead();
    return b;
  }

  /** Takes or renews the lead; the leader reads every kept link (new ones too) and reports; another node does neither. */
  private async lead(): Promise<void> {
    let leading = false;
    let doc: BracketDoc | undefined;
    try {
      leading = await this.deps.store.lead(this.deps.nodeId, this.deps.leadTtlMs);
      if (leading) doc = await this.deps.store.read();
    } catch (err) {
      this.log.warn({ error: (err as Error).message }, 'bracket lead not renewed (the store did not answer)');
      leading = false;
    }
    if (this.closed) return;
    if (leading !== this.leading) this.log.info({ nodeId: this.deps.nodeId }, leading ? 'this node reads and reports the linked brackets' : 'another node reads and reports the linked brackets');
    if (leading && !this.leading) this.reporter.poke(); // every owed report is looked at again
    this.leading = leading;
    this.reporter.active = leading;
    const ids = new Set(doc?.links.map((l) => l.id) ?? []);
    for (const id of this.sync.watched()) if (!ids.has(id)) this.sync.unwatch(id);
    for (const id of ids) this.sync.watch(id);
  }

  /** Links a bracket: answered without its token (which is never shown again). */
  async link(body: unknown): Promise<ReturnType<Brackets['linkView']>> {
    const input = (body ?? {}) as { url?: unknown; token?: unknown; mode?: unknown; platform?: unknown; bestOf?: unknown };
    const platform = this.platforms.get(typeof input.platform === 'string' ? input.platform : 'startgg');
    if (!platform) throw new LinkError(`platform: one of ${[...this.platforms.keys()].join(', ')}`);
    if (typeof input.url !== 'string' || input.url.trim() === '' || input.url.length > 512) throw new LinkError('url: the bracket\'s URL or slug is required (at most 512 characters)');
    if (typeof input.token !== 'string' || !/^\S{8,512}$/.test(input.token)) throw new LinkError('token: the organiser\'s API token is required (8–512 characters, no spaces)');
    const mode = input.mode ?? 'auto';
    if (mode !== 'auto' && mode !== 'confirm') throw new LinkError('mode: auto (report at once) or confirm (hold each report for an operator)');
    if (input.bestOf !== undefined && input.bestOf !== 1 && input.bestOf !== 3 && input.bestOf !== 5) throw new LinkError('bestOf: 1, 3 or 5 (the series\' length where the platform has none: Challonge)');
    let target: BracketTarget;
    try {
      target = { ...platform.parseTarget(input.url), ...(input.bestOf !== undefined ? { bestOf: input.bestOf } : {}) };
    } catch (err) {
      throw new LinkError(`url: ${(err as Error).message}`);
    }
    const link: BracketLink = {
      id: `lnk_${randomBytes(6).toString('hex')}`, platform: platform.name, input: input.url.trim(), target, token: input.token,
      mode: mode as ReportMode, name: '', stages: [], createdAt: Date.now(),
    };
    let problem = '';
    await this.deps.store.update((doc) => {
      if (doc.links.length >= MAX_LINKS) { problem = `At most ${MAX_LINKS} brackets may be linked`; return undefined; }
      if (doc.links.some((l) => l.platform === link.platform && l.target.kind === target.kind && l.target.ref === target.ref)) { problem = 'This bracket is linked already'; return undefined; }
      return { ...doc, links: [...doc.links, link] };
    });
    if (problem) throw new LinkError(problem, 409);
    if (this.leading) this.sync.watch(link.id); // else the leader reads it from its next renewal on
    this.log.info({ linkId: link.id, platform: link.platform, target, mode: link.mode }, 'bracket linked');
    return this.linkView(link);
  }

  /** Changes how its reports go (auto, confirm); null: no such link. */
  async setMode(id: string, mode: unknown): Promise<ReturnType<Brackets['linkView']> | null> {
    if (mode !== 'auto' && mode !== 'confirm') throw new LinkError('mode: auto (report at once) or confirm (hold each report for an operator)');
    let changed: BracketLink | null = null;
    const doc = await this.deps.store.update((d) => {
      const l = d.links.find((x) => x.id === id);
      if (!l) return undefined;
      l.mode = mode;
      changed = l;
      return d;
    });
    this.reporter.poke();
    return changed ? this.linkView(changed, doc) : null;
  }

  /** Unlinks it: its fixtures stay in the schedule (an operator deletes them there); nothing more is read or reported. */
  async unlink(id: string): Promise<boolean> {
    let found = false;
    await this.deps.store.update((doc) => {
      found = doc.links.some((l) => l.id === id);
      if (!found) return undefined;
      const sets = Object.fromEntries(Object.entries(doc.sets).filter(([, s]) => s.linkId !== id));
      const { [id]: _gone, ...syncs } = doc.syncs ?? {};
      return { links: doc.links.filter((l) => l.id !== id), sets, syncs };
    });
    if (found) this.sync.unwatch(id);
    return found;
  }

  /** Reads the link now (on the leading node; on another, the leader reads it at its next poll); null: no such link. */
  async syncNow(id: string): Promise<{ reading: boolean } | null> {
    if (!(await this.deps.store.read()).links.some((l) => l.id === id)) return null;
    if (this.leading) this.sync.now(id);
    return { reading: this.leading };
  }

  /**
   * Confirms the report held for a linked match: it goes out. `seen`: the held report as the operator
   * saw it (the panel sends it): when another map's end replaced it meanwhile, nothing is confirmed
   * ('changed'). null: no such match; 'nothing': none held.
   */
  async confirm(groupCode: string, seen?: unknown): Promise<SetReport | null | 'nothing' | 'changed'> {
    let out: SetReport | null | 'nothing' | 'changed' = null;
    await this.deps.store.update((doc) => {
      const s = doc.sets[groupCode];
      if (!s) return undefined;
      if (s.report.held === null) { out = 'nothing'; return undefined; }
      if (seen !== undefined && JSON.stringify(seen) !== s.report.held) { out = 'changed'; return undefined; }
      out = parsed(s.report.held);
      return { ...doc, sets: { ...doc.sets, [groupCode]: { ...s, report: { ...s.report, confirmed: s.report.held } } } };
    });
    this.reporter.poke();
    return out;
  }

  /** Every link with its read's state, and every linked match (GET /admin/brackets, the dashboard). */
  async view(): Promise<{ links: Array<ReturnType<Brackets['linkView']>>; sets: Array<Awaited<ReturnType<Brackets['setView']>>> }> {
    const doc = await this.deps.store.read();
    const sets = await Promise.all(Object.values(doc.sets).map((s) => this.setView(s, false)));
    return { links: doc.links.map((l) => this.linkView(l, doc)), sets: sets.sort((a, b) => a.stream.localeCompare(b.stream) || a.station.localeCompare(b.station) || a.groupCode.localeCompare(b.groupCode)) };
  }

  /** One linked match with everything sent and answered; undefined: not linked. */
  async setOf(groupCode: string): Promise<Awaited<ReturnType<Brackets['setView']>> | undefined> {
    const s = (await this.deps.store.read()).sets[groupCode];
    return s ? this.setView(s, true) : undefined;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.leadTimer);
    this.sync.close();
    this.reporter.close();
    for (const p of this.platforms.values()) p.close();
  }

  private linkView(l: BracketLink, doc?: BracketDoc) {
    return { id: l.id, platform: l.platform, input: l.input, target: l.target, mode: l.mode, name: l.name, createdAt: l.createdAt, sync: doc?.syncs?.[l.id] ?? null };
  }

  private async setView(s: LinkedSet, exchanges: boolean) {
    const f = await this.deps.keeper.store.get(s.groupCode);
    const r = s.report;
    const state = r.held !== null ? 'held' : r.lastError !== null ? 'retrying' : r.sent !== null ? (r.completed ? 'completed' : 'sent') : 'none';
    return {
      groupCode: s.groupCode, linkId: s.linkId, setId: s.setId, entrantIds: s.entrantIds, round: s.round, stream: s.stream, station: s.station,
      teams: f ? f.teams.map((t) => t.name) : [], status: f ? status(f) : 'missing', wins: f ? wins(f) : [0, 0], flags: s.flags, change: s.change,
      report: { state, sent: parsed(r.sent), held: parsed(r.held), completed: r.completed, lastError: r.lastError, failures: r.failures, ...(exchanges ? { exchanges: r.exchanges } : {}) },
    };
  }
}
