// A real local HTTP server standing in for Challonge's API v1 (docs/brackets.md, "Challonge"): every
// request is checked against the documented API (api.challonge.com/v1/documents: tournaments/show,
// participants/index, matches/index, matches/show, matches/update, matches/reopen; the v1 page's
// "Authentication" and "Response Codes"): its path and method, the `.json` format, `api_key` (in the
// query or the form body), the update's `match[scores_csv]` ("1-3,3-0,3-2": player 1's score first)
// and `match[winner_id]` (only with `match[scores_csv]`, and one of the match's two players). A
// request that breaks a rule is answered as Challonge answers it (`{ "errors": [...] }` with 401,
// 404, 406 or 422) and recorded with its reasons (`invalid()`: the tests assert none). GETs are
// permitted with any known key, changes only with an owner's (as the v1 page says). Reports change
// the held matches as Challonge does: a winner completes the match and moves the winner (and the
// loser, where a later match takes it) into the matches that follow; reopening resets them.
// `down(ms)` / `stop()` + `resume()` refuse connections (ECONNREFUSED) for a while.
import http from 'node:http';
import { PlatformStandin } from './platform-standin.js';

export interface ChParticipant { id: number; name: string; display_name?: string; portrait?: string | null; group_player_ids?: number[] }
export interface ChMatch {
  id: number; round: number; identifier: string; state: 'pending' | 'open' | 'complete';
  player1_id: number | null; player2_id: number | null;
  /** Where a player comes from: the winner (or loser) of an earlier match. */
  player1_prereq_match_id?: number | null; player2_prereq_match_id?: number | null;
  player1_is_prereq_match_loser?: boolean; player2_is_prereq_match_loser?: boolean;
  winner_id?: number | null; loser_id?: number | null; scores_csv?: string; location?: string | null; group_id?: number | null;
}
export interface ChTournament { id: number; url: string; subdomain?: string; name: string; participants: ChParticipant[]; matches: ChMatch[] }
/** One request: `errors` are the documented rules it broke (none for a valid request), `answered` the errors it was answered with. */
export interface ChRequest { method: string; path: string; query: Record<string, string>; form: Record<string, string>; status: number; errors: string[]; answered: string[]; at: number }
export interface ChUpdate { op: 'update' | 'reopen'; tournament: string; matchId: number; form: Record<string, string>; at: number }

const SCORES_CSV = /^\d{1,3}-\d{1,3}(,\d{1,3}-\d{1,3})*$/;
const UPDATE_FIELDS = new Set(['api_key', 'match[scores_csv]', 'match[winner_id]', 'match[player1_votes]', 'match[player2_votes]']);

export class ChallongeStandin extends PlatformStandin {
  readonly tournaments: ChTournament[] = [];
  readonly received: ChRequest[] = [];
  /** The changes taken (updates and reopens), in order. */
  readonly updates: ChUpdate[] = [];

  /** `owners`: keys that may change the tournaments; `viewers`: keys that may only read. */
  private constructor(private readonly owners: string[], private readonly viewers: string[]) {
    super();
  }

  static async start(owners: string[], viewers: string[] = []): Promise<ChallongeStandin> {
    const s = new ChallongeStandin(owners, viewers);
    await s.listen();
    return s;
  }

  /** The API's base (CHALLONGE_API_URL). */
  get url(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  /** Requests that broke a documented rule (the tests assert none). */
  invalid(): ChRequest[] {
    return this.received.filter((r) => r.errors.length > 0);
  }

  match(id: number): ChMatch {
    for (const t of this.tournaments) for (const m of t.matches) if (m.id === id) return m;
    throw new Error(`no match ${id}`);
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const u = new URL(req.url ?? '/', 'http://x');
    const query = Object.fromEntries(u.searchParams);
    const raw = Buffer.concat(chunks).toString('utf8');
    const type = req.headers['content-type'] ?? '';
    const form = raw && type.startsWith('application/x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(raw)) : {};
    const rec: ChRequest = { method: req.method ?? '', path: u.pathname, query, form, status: 200, errors: [], answered: [], at: Date.now() };
    this.received.push(rec);
    const answer = (status: number, body: unknown) => {
      rec.status = status;
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    // A broken rule (`errors`: the tests assert none), or an answer the request deserved (an unknown key, a tournament not found).
    const refuse = (status: number, ...errors: string[]) => { rec.errors.push(...errors); rec.answered.push(...errors); answer(status, { errors }); };
    const deny = (status: number, error: string) => { rec.answered.push(error); answer(status, { errors: [error] }); };
    if (raw && !type.startsWith('application/x-www-form-urlencoded')) rec.errors.push(`a body that is not a form (${type || 'no content-type'})`);

    const route = /^\/v1\/tournaments\/([^/]+?)(?:\/(participants|matches)(?:\/(\d+)(\/reopen)?)?)?\.(\w+)$/.exec(u.pathname);
    if (!route) return refuse(404, 'Not found');
    const [, ref, what, matchId, reopen, format] = route;
    if (format !== 'json') return refuse(406, 'Requested format is not supported - request JSON or XML only');
    const allowed = reopen ? 'POST' : matchId ? ['GET', 'PUT'] : 'GET';
    if (!(Array.isArray(allowed) ? allowed : [allowed]).includes(req.method ?? '')) return refuse(404, `No route for ${req.method} ${u.pathname}`);
    const key = query.api_key ?? form.api_key;
    if (key === undefined) return refuse(401, 'api_key is required (or HTTP basic authentication)');
    const changes = req.method !== 'GET';
    if (!this.owners.includes(key) && (changes || !this.viewers.includes(key))) return deny(401, 'Unauthorized (Invalid API key or insufficient permissions)');
    if (changes && Object.keys(query).some((k) => k !== 'api_key')) rec.errors.push(`parameters in the query of a ${req.method}: ${Object.keys(query).join(', ')}`);
    const t = this.tournaments.find((x) => String(x.id) === decodeURIComponent(ref) || (x.subdomain ? `${x.subdomain}-${x.url}` : x.url) === decodeURIComponent(ref));
    if (!t) return deny(404, 'Tournament not found within your account scope');

    if (!what) return answer(200, { tournament: { id: t.id, name: t.name, url: t.url, subdomain: t.subdomain ?? null, state: 'underway', participants_count: t.participants.length } });
    if (what === 'participants') {
      if (matchId) return refuse(404, 'Not found');
      return answer(200, t.participants.map((p) => ({ participant: participantOf(t, p) })));
    }
    if (!matchId) {
      const state = query.state ?? 'all';
      if (!['all', 'pending', 'open', 'complete'].includes(state)) rec.errors.push(`state: all, pending, open or complete (not ${state})`);
      const ms = t.matches.filter((m) => state === 'all' || m.state === state).filter((m) => !query.participant_id || [m.player1_id, m.player2_id].map(String).includes(query.participant_id));
      return answer(200, ms.map((m) => ({ match: matchOf(t, m) })));
    }
    const m = t.matches.find((x) => x.id === Number(matchId));
    if (!m) return deny(404, 'Match not found within your account scope');
    if (req.method === 'GET') return answer(200, { match: matchOf(t, m) });
    if (reopen) {
      if (m.state !== 'complete') return refuse(422, 'Match is not complete');
      this.updates.push({ op: 'reopen', tournament: ref, matchId: m.id, form, at: Date.now() });
      this.reset(t, m);
      m.state = 'open'; m.winner_id = null; m.loser_id = null; m.scores_csv = '';
      return answer(200, { match: matchOf(t, m) });
    }
    // PUT: matches/update.
    const unknown = Object.keys(form).filter((k) => !UPDATE_FIELDS.has(k));
    if (unknown.length) return refuse(422, `Unknown parameters: ${unknown.join(', ')}`);
    const csv = form['match[scores_csv]'];
    const winner = form['match[winner_id]'];
    if (csv === undefined && winner === undefined) return refuse(422, 'Nothing to update: match[scores_csv] and/or match[winner_id]');
    if (winner !== undefined && csv === undefined) return refuse(422, 'If you\'re updating winner_id, scores_csv must also be provided');
    if (csv !== undefined && !SCORES_CSV.test(csv)) return refuse(422, `scores_csv must be comma separated scores, player 1's first (e.g. "1-3,3-0,3-2"), not "${csv}"`);
    if (m.state === 'pending' || m.player1_id === null || m.player2_id === null) return deny(422, 'The match is not open: its players are not known yet');
    if (winner !== undefined && winner !== String(m.player1_id) && winner !== String(m.player2_id)) return refuse(422, `winner_id must be one of the match's players (${m.player1_id}, ${m.player2_id}), not ${winner}`);
    this.updates.push({ op: 'update', tournament: ref, matchId: m.id, form: { ...form, api_key: '(key)' }, at: Date.now() });
    if (csv !== undefined) m.scores_csv = csv;
    if (winner !== undefined) {
      // "If you change the outcome of a completed match, all matches in the bracket that branch from the updated match will be reset."
      if (m.state === 'complete' && String(m.winner_id) !== winner) this.reset(t, m);
      m.winner_id = Number(winner);
      m.loser_id = m.winner_id === m.player1_id ? m.player2_id : m.player1_id;
      m.state = 'complete';
      this.advance(t, m);
    }
    answer(200, { match: matchOf(t, m) });
  }

  /** The winner and loser of `m` into the matches that take them. */
  private advance(t: ChTournament, m: ChMatch): void {
    for (const next of t.matches) {
      for (const slot of [1, 2] as const) {
        if (next[`player${slot}_prereq_match_id`] !== m.id) continue;
        next[`player${slot}_id`] = next[`player${slot}_is_prereq_match_loser`] ? m.loser_id ?? null : m.winner_id ?? null;
      }
      if (next.state === 'pending' && next.player1_id !== null && next.player2_id !== null) next.state = 'open';
    }
  }

  /** The matches that follow `m` back to pending, their players from it cleared (and theirs, on). */
  private reset(t: ChTournament, m: ChMatch): void {
    for (const next of t.matches) {
      if (next.player1_prereq_match_id !== m.id && next.player2_prereq_match_id !== m.id) continue;
      this.reset(t, next);
      if (next.player1_prereq_match_id === m.id) next.player1_id = null;
      if (next.player2_prereq_match_id === m.id) next.player2_id = null;
      next.state = 'pending'; next.winner_id = null; next.loser_id = null; next.scores_csv = '';
    }
  }
}

/** A participant as participants/index shows it (the documented fields the service may read, and some it does not). */
function participantOf(t: ChTournament, p: ChParticipant) {
  return {
    active: true, id: p.id, tournament_id: t.id, name: p.name, display_name: p.display_name ?? p.name, seed: t.participants.indexOf(p) + 1,
    misc: null, icon: null, group_id: null, group_player_ids: p.group_player_ids ?? [], final_rank: null,
    attached_participatable_portrait_url: p.portrait ?? null, display_name_with_invitation_email_address: p.display_name ?? p.name,
  };
}

/** A match as matches/index and matches/show show it. */
function matchOf(t: ChTournament, m: ChMatch) {
  return {
    id: m.id, tournament_id: t.id, identifier: m.identifier, round: m.round, state: m.state,
    player1_id: m.player1_id, player2_id: m.player2_id,
    player1_prereq_match_id: m.player1_prereq_match_id ?? null, player2_prereq_match_id: m.player2_prereq_match_id ?? null,
    player1_is_prereq_match_loser: m.player1_is_prereq_match_loser ?? false, player2_is_prereq_match_loser: m.player2_is_prereq_match_loser ?? false,
    winner_id: m.winner_id ?? null, loser_id: m.loser_id ?? null, scores_csv: m.scores_csv ?? '', location: m.location ?? null, group_id: m.group_id ?? null,
    underway_at: null, scheduled_time: null, attachment_count: null, has_attachment: false,
  };
}

/**
 * The tests' tournament (autumncup.challonge.com/vlr_main): the upper bracket final between the
 * recorded match's two teams is open, the grand final waits for its winner, an earlier match is
 * complete. The Owls' participant has a display name of its own (the bracket shows it).
 */
export const CH = {
  wolves: { id: 16543993, name: 'Harbor Wolves', portrait: 'https://cdn.example.org/teams/harbor-wolves.png' },
  owls: { id: 16543997, name: 'Crimson Owls (seed 2)', display_name: 'Crimson Owls' },
  lights: { id: 16543994, name: 'Northern Lights', portrait: null },
  tide: { id: 16543996, name: 'Tidebreakers' },
  ubf: 23575260, gf: 23575261, done: 23575259,
} as const;

export function autumnCup(): ChTournament {
  return {
    id: 3861520, url: 'vlr_main', subdomain: 'autumncup', name: 'Autumn Cup 2026 – VALORANT',
    participants: [{ ...CH.wolves }, { ...CH.owls }, { ...CH.lights }, { ...CH.tide }],
    matches: [
      { id: CH.done, round: 2, identifier: 'B', state: 'complete', player1_id: CH.lights.id, player2_id: CH.tide.id, winner_id: CH.lights.id, loser_id: CH.tide.id, scores_csv: '13-4,13-9' },
      { id: CH.ubf, round: 3, identifier: 'C', state: 'open', player1_id: CH.wolves.id, player2_id: CH.owls.id, location: 'Station 3' },
      { id: CH.gf, round: 4, identifier: 'D', state: 'pending', player1_id: CH.lights.id, player2_id: null, player2_prereq_match_id: CH.ubf },
    ],
  };
}
