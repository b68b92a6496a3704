// Results back to the bracket (docs/brackets.md, "Reports"): the state of each linked match's series
// as the schedule keeps it (its fixture's map results, its winner once decided) against what the
// platform last took (LinkedSet.report.sent). They differ when a map ended, or an operator corrected
// a result: then the whole state goes out (every map so far, and the winner once decided), so a
// report sent twice changes nothing and a correction is simply the next report. A report the
// platform did not take is sent again (BRACKETS_RETRY_MS doubling up to BRACKETS_RETRY_MAX_MS) until
// it is taken: what is owed is derived from the fixture store and the bracket store, both durable,
// so a platform down for an hour, or a restart meanwhile, loses nothing. In `confirm` mode the report
// waits (`held`) until an operator confirms it; a later map makes the held report the newer one.
// A correction that changes the winner of a match the platform holds as decided is not sent where the
// platform cannot change it (start.gg): it is flagged (`winner_changed`): the platform's set must be
// reset by hand. Challonge can (`canChangeWinner`: its adapter reopens the match first).
import type { Logger } from '../base/log.js';
import { decided, wins, type Fixture, type FixtureStore } from '../schedule/index.js';
import type { BracketLink, BracketStore, LinkedSet } from './bracket-store.js';
import type { BracketPlatform, BracketStage, Exchange, SetReport } from './platform.js';

export interface ReporterDeps {
  log: Logger;
  store: BracketStore;
  fixtures: FixtureStore;
  platforms: ReadonlyMap<string, BracketPlatform>;
  retryMs: number;
  retryMaxMs: number;
  /** How often the fixture store's revision is looked at (a map's end, a correction). */
  checkMs: number;
}

/** Exchanges kept per linked match. */
const KEPT_EXCHANGES = 20;

/** The match's whole state as the schedule keeps it, in the platform's terms. */
export function reportOf(f: Fixture, linked: LinkedSet, stages: readonly BracketStage[]): SetReport {
  const stageOf = (map: string): string | null => {
    const key = map.trim().toLowerCase();
    return stages.find((s) => s.name.trim().toLowerCase() === key)?.id ?? null;
  };
  const games = f.results.map((r, i) => ({ num: i + 1, winnerId: linked.entrantIds[r.winner], scores: r.scores, stageId: stageOf(r.map) }));
  const [a, b] = wins(f);
  return { setId: linked.setId, games, winnerId: decided(f) ? linked.entrantIds[a > b ? 0 : 1] : null };
}

export class BracketReporter {
  private readonly log: Logger;
  private readonly timer: NodeJS.Timeout;
  private revision = -1;
  private busy = false;
  private poked = true;
  /** group code → when its failed report is due again. */
  private readonly due = new Map<string, number>();
  private closed = false;
  /** This node leads (brackets.ts): only then it reports. */
  active = false;

  constructor(private readonly deps: ReporterDeps) {
    this.log = deps.log.child({ module: 'brackets' });
    this.timer = setInterval(() => void this.tick(), deps.checkMs);
    this.timer.unref();
  }

  /** Something changed (a link, a confirmation, a bracket read): look at every linked match soon. */
  poke(): void {
    this.poked = true;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
  }

  private async tick(): Promise<void> {
    if (this.busy || this.closed || !this.active) return;
    this.busy = true;
    try {
      const revision = await this.deps.fixtures.revision();
      const now = Date.now();
      const retry = [...this.due.values()].some((at) => at <= now);
      if (revision === this.revision && !this.poked && !retry) return;
      this.revision = revision;
      this.poked = false;
      const doc = await this.deps.store.read();
      for (const linked of Object.values(doc.sets)) {
        const link = doc.links.find((l) => l.id === linked.linkId);
        if (link && !this.closed) await this.reconcile(link, linked);
      }
    } catch (err) {
      this.log.warn({ error: (err as Error).message }, 'bracket reports not looked at (store did not answer)');
      this.poked = true;
    } finally {
      this.busy = false;
    }
  }

  private async reconcile(link: BracketLink, linked: LinkedSet): Promise<void> {
    const code = linked.groupCode;
    const f = await this.deps.fixtures.get(code);
    if (!f) return;
    const report = reportOf(f, linked, link.stages);
    const text = JSON.stringify(report);
    const state = linked.report;
    if (text === state.sent || (report.games.length === 0 && state.sent === null)) {
      this.due.delete(code);
      if (state.held !== null || linked.flags.includes('winner_changed')) await this.write(code, (s) => ({ ...s, flags: s.flags.filter((x) => x !== 'winner_changed'), report: { ...s.report, held: null } }));
      return;
    }
    const platform = this.deps.platforms.get(link.platform);
    if (!platform) return;
    const sentWinner = state.sent === null ? null : (JSON.parse(state.sent) as SetReport).winnerId;
    if (state.completed && report.winnerId !== sentWinner && !platform.canChangeWinner) {
      if (!linked.flags.includes('winner_changed')) {
        this.log.warn({ linkId: link.id, groupCode: code, setId: linked.setId }, 'bracket report not sent: a correction changes the winner the platform holds (reset the set there)');
        await this.write(code, (s) => ({ ...s, flags: [...s.flags, 'winner_changed'] }));
      }
      return;
    }
    if (link.mode === 'confirm' && state.confirmed !== text) {
      if (state.held !== text) {
        this.log.info({ linkId: link.id, groupCode: code, setId: linked.setId, report }, 'bracket report held for an operator\'s confirmation');
        await this.write(code, (s) => ({ ...s, report: { ...s.report, held: text } }));
      }
      return;
    }
    if ((this.due.get(code) ?? 0) > Date.now()) return;
    const exchange: Exchange = await platform.report(report, link.token, state.completed, link.target);
    const fields = { linkId: link.id, groupCode: code, setId: linked.setId, operation: exchange.operation, sent: exchange.sent, answer: exchange.answer };
    let failures = 0;
    await this.write(code, (s) => {
      const exchanges = [...s.report.exchanges, exchange].slice(-KEPT_EXCHANGES);
      failures = exchange.ok ? 0 : s.report.failures + 1;
      return {
        ...s,
        report: exchange.ok
          ? { ...s.report, exchanges, sent: text, completed: s.report.completed || report.winnerId !== null, held: null, lastError: null, failures }
          : { ...s.report, exchanges, lastError: exchange.answer, failures },
      };
    });
    if (exchange.ok) {
      this.due.delete(code);
      this.log.info(fields, 'bracket report taken');
    } else {
      const wait = Math.min(this.deps.retryMaxMs, this.deps.retryMs * 2 ** (failures - 1));
      this.due.set(code, Date.now() + wait);
      this.log.warn({ ...fields, failures, retryInMs: wait }, 'bracket report not taken (sent again later)');
    }
  }

  private async write(code: string, change: (s: LinkedSet) => LinkedSet): Promise<void> {
    await this.deps.store.update((doc) => (doc.sets[code] ? { ...doc, sets: { ...doc.sets, [code]: change(doc.sets[code]) } } : undefined));
  }
}
