// start.gg as a BracketPlatform (brackets/platform.ts; docs/brackets.md): its GraphQL API
// (STARTGG_API_URL), the organiser's token as Bearer, every request within the documented rate
// limit (80 per 60 s per token, the last 20 kept for reports: rate-window.ts) and with a timeout (BRACKETS_TIMEOUT_MS, through the
// service's outbound client: metrics label `startgg`). An answer with `errors` is a failure; its
// messages are kept (cut), never the token.
import { createHash } from 'node:crypto';
import type { Outbound } from '../../../backend/index.js';
import type { BracketEntrant, BracketPlatform, BracketRead, BracketSet, BracketStage, BracketTarget, Exchange, SetReport } from '../../platform.js';
import { RateWindow, type RequestKind } from '../../rate-window.js';
import { EVENT_SETS_QUERY, MAX_PAGES, OPEN_SET_STATES, PHASE_SETS_QUERY, RATE_LIMIT, REPORT_SET_MUTATION, SETS_PER_PAGE, UPDATE_SET_MUTATION } from './queries.js';

export interface StartggOptions {
  url: string;
  timeoutMs: number;
  request: Outbound;
}

/** The answer of a GraphQL request that failed: HTTP status, or its errors' messages. */
export class PlatformError extends Error {}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const RIOT_ID = /^[^#]{1,32}#[^#]{1,16}$/;

export class StartggPlatform implements BracketPlatform {
  readonly name = 'startgg';
  private readonly limit = new RateWindow(RATE_LIMIT.requests, RATE_LIMIT.windowMs, RATE_LIMIT.reservedForReports);

  constructor(private readonly options: StartggOptions) {}

  /**
   * https://www.start.gg/tournament/<t>/event/<e>[/…] or `tournament/<t>/event/<e>`: the event;
   * a URL with `/brackets/<phaseId>` (the bracket's page), or `phase/<id>`: that phase.
   */
  parseTarget(input: string): BracketTarget {
    const raw = input.trim();
    let path = raw;
    if (/^https?:\/\//i.test(raw)) {
      const u = new URL(raw);
      if (!/(^|\.)start\.gg$|(^|\.)smash\.gg$/i.test(u.hostname)) throw new Error('Not a start.gg URL (https://www.start.gg/tournament/…/event/…)');
      path = u.pathname;
    }
    path = path.replace(/^\/+|\/+$/g, '');
    const phase = /^phase\/(\d+)$/.exec(path) ?? /^tournament\/[^/]+\/event\/[^/]+\/brackets\/(\d+)(\/|$)/.exec(path);
    if (phase) return { kind: 'phase', ref: phase[1] };
    const event = /^(tournament\/[a-z0-9-_]+\/event\/[a-z0-9-_]+)(\/|$)/i.exec(path);
    if (event) return { kind: 'event', ref: event[1].toLowerCase() };
    throw new Error('Give a start.gg event or phase: its URL (https://www.start.gg/tournament/<t>/event/<e>, or its bracket page …/brackets/<phase>/<group>) or its slug (tournament/<t>/event/<e>)');
  }

  async read(target: BracketTarget, token: string): Promise<BracketRead> {
    const sets: BracketSet[] = [];
    let name = '';
    let stages: BracketStage[] = [];
    let requests = 0;
    for (let page = 1; page <= MAX_PAGES; page++) {
      const variables = { ...(target.kind === 'phase' ? { id: target.ref } : { slug: target.ref }), page, perPage: SETS_PER_PAGE, states: [...OPEN_SET_STATES] };
      const data = await this.call(target.kind === 'phase' ? PHASE_SETS_QUERY : EVENT_SETS_QUERY, variables, token, 'read');
      requests++;
      const root = obj(target.kind === 'phase' ? data.phase : data.event);
      if (!data.phase && !data.event) throw new PlatformError(`start.gg has no ${target.kind} ${target.ref} (or the token may not read it)`);
      const event = target.kind === 'phase' ? obj(root.event) : root;
      name = target.kind === 'phase' ? `${text(event.name)} – ${text(root.name)}` : text(root.name);
      stages = list(obj(event.videogame).stages).map((s) => ({ id: text(obj(s).id), name: text(obj(s).name) })).filter((s) => s.id !== '' && s.name !== '');
      const connection = obj(root.sets);
      for (const node of list(connection.nodes)) {
        const set = toSet(obj(node));
        if (set) sets.push(set);
      }
      const totalPages = Number(obj(connection.pageInfo).totalPages ?? 0);
      if (!(page < totalPages)) break;
    }
    return { name, sets, stages, requests };
  }

  async report(report: SetReport, token: string, completed: boolean): Promise<Exchange> {
    const operation = completed ? 'updateBracketSet' : 'reportBracketSet';
    const sent = {
      setId: report.setId,
      ...(report.winnerId !== null ? { winnerId: report.winnerId } : {}),
      gameData: report.games.map((g) => ({
        gameNum: g.num, winnerId: g.winnerId, entrant1Score: g.scores[0], entrant2Score: g.scores[1], ...(g.stageId !== null ? { stageId: g.stageId } : {}),
      })),
    };
    const at = Date.now();
    try {
      const data = await this.call(completed ? UPDATE_SET_MUTATION : REPORT_SET_MUTATION, sent, token, 'report');
      return { at, operation, sent, ok: true, answer: JSON.stringify(data).slice(0, 500) };
    } catch (err) {
      return { at, operation, sent, ok: false, answer: (err as Error).message.slice(0, 500) };
    }
  }

  close(): void {}

  /** One GraphQL request: its `data`, or a PlatformError (HTTP status, `errors`, no answer). */
  private async call(query: string, variables: Obj, token: string, kind: RequestKind): Promise<Obj> {
    await this.limit.take(createHash('sha256').update(token).digest('hex'), kind);
    const label = `startgg_${kind}`;
    let res;
    try {
      res = await this.options.request(this.options.url, {
        method: 'POST', label, timeoutMs: this.options.timeoutMs,
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: { query, variables },
      });
    } catch (err) {
      throw new PlatformError(`start.gg did not answer: ${(err as Error).message}`);
    }
    const body = obj(res.body);
    const errors = list(body.errors).map((e) => text(obj(e).message)).filter(Boolean);
    if (res.status < 200 || res.status > 299) throw new PlatformError(`start.gg answered HTTP ${res.status}${errors.length ? `: ${errors.join('; ')}` : ''}`);
    if (errors.length > 0) throw new PlatformError(`start.gg answered errors: ${errors.join('; ')}`);
    return obj(body.data);
  }
}

/** A set whose two entrants are known, in slot order; null otherwise. */
function toSet(node: Obj): BracketSet | null {
  const slots = list(node.slots).map(obj).sort((a, b) => Number(a.slotIndex ?? 0) - Number(b.slotIndex ?? 0));
  const entrants = slots.map((s) => toEntrant(obj(s.entrant))).filter((e): e is BracketEntrant => e !== null);
  const id = text(node.id);
  if (entrants.length !== 2 || id === '') return null;
  // setGamesType 1: best of totalGames; 2: a fixed number of games (played as a best of the same).
  const total = Number(node.totalGames ?? 0);
  const bestOf = total >= 5 ? 5 : total >= 2 ? 3 : total === 1 ? 1 : 3;
  const stream = obj(node.stream);
  const station = obj(node.station);
  return {
    id, entrants: [entrants[0], entrants[1]], bestOf,
    round: text(node.fullRoundText),
    stream: text(stream.streamName),
    station: text(station.identifier) || text(station.number),
  };
}

function toEntrant(e: Obj): BracketEntrant | null {
  const id = text(e.id);
  const name = text(e.name).trim();
  if (id === '' || name === '') return null;
  const images = list(obj(e.team).images).map(obj);
  const logo = text((images.find((i) => i.type === 'profile') ?? images[0] ?? {}).url);
  const players: string[] = [];
  for (const p of list(e.participants).map(obj)) {
    const riot = list(p.requiredConnections).map(obj).find((c) => c.type === 'RIOT');
    const riotId = text(riot?.externalUsername).replace(/\s*#\s*/, '#').trim();
    if (RIOT_ID.test(riotId)) players.push(riotId);
  }
  return { id, name, logo, players: players.slice(0, 10) };
}
