// Challonge's side of the words (docs/brackets.md, "Challonge"): a tournament as an operator gives it
// (its URL or id) and the API v1's JSON as the concern needs it (participants, open matches).
import type { BracketEntrant, BracketSet, BracketTarget } from '../../platform.js';

type Obj = Record<string, unknown>;
export const obj = (v: unknown): Obj => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/** A tournament's URL part: "letters, numbers, and underscores only" (Challonge's tournaments/create). */
const URL_PART = /^[A-Za-z0-9_]{1,60}$/;
/** A locale segment Challonge's pages may carry before the tournament (challonge.com/de/<url>). */
const LOCALE = /^[a-z]{2}(-[A-Za-z]{2})?$/;
const USAGE = 'Give a Challonge tournament: its URL (https://challonge.com/<url>, https://<subdomain>.challonge.com/<url>) or its id or API name (<url>, <subdomain>-<url>)';

/**
 * The API's {tournament}: "Tournament ID (e.g. 10230) or URL (e.g. 'single_elim' for
 * challonge.com/single_elim). If assigned to a subdomain, URL format must be :subdomain-:tournament_url".
 */
export function parseTournament(input: string): BracketTarget {
  const raw = input.trim();
  if (/^https?:\/\//i.test(raw)) {
    const u = new URL(raw);
    const host = u.hostname.toLowerCase();
    if (host !== 'challonge.com' && !host.endsWith('.challonge.com')) throw new Error(`Not a Challonge URL. ${USAGE}`);
    const sub = host === 'challonge.com' || host === 'www.challonge.com' ? '' : host.slice(0, -'.challonge.com'.length);
    const parts = u.pathname.split('/').filter(Boolean);
    if (parts.length >= 2 && LOCALE.test(parts[0])) parts.shift();
    const url = parts[0] ?? '';
    if (!URL_PART.test(url) || (sub !== '' && !/^[a-z0-9][a-z0-9-]{0,62}$/.test(sub)) || sub.includes('.')) throw new Error(USAGE);
    return { kind: 'tournament', ref: sub ? `${sub}-${url}` : url };
  }
  if (/^\d{1,12}$/.test(raw) || /^([a-z0-9][a-z0-9-]{0,62}-)?[A-Za-z0-9_]{1,60}$/.test(raw)) return { kind: 'tournament', ref: raw };
  throw new Error(USAGE);
}

/**
 * The participants by every id a match may name them with: the participant's `id`, and in a group
 * stage its `group_player_ids` (a group's matches name their players by those).
 */
export function participantsById(body: unknown): Map<string, Obj> {
  const byId = new Map<string, Obj>();
  for (const item of list(body)) {
    const p = obj(obj(item).participant);
    const id = text(p.id);
    if (id === '') continue;
    byId.set(id, p);
    for (const g of list(p.group_player_ids)) if (text(g) !== '') byId.set(text(g), p);
  }
  return byId;
}

function entrant(id: string, p: Obj | undefined): BracketEntrant | null {
  if (!p) return null;
  const name = (text(p.display_name) || text(p.name)).trim();
  if (name === '') return null;
  const logo = text(p.attached_participatable_portrait_url);
  return { id, name, logo: /^https?:\/\//.test(logo) ? logo : '', players: [] };
}

/** Challonge's `round`: positive in the winners' bracket (or a group's, a round robin's), negative in the losers'. */
function roundText(m: Obj): string {
  const round = Number(m.round ?? 0);
  const stage = m.group_id !== null && m.group_id !== undefined ? 'Group stage ' : '';
  if (!Number.isInteger(round) || round === 0) return text(m.identifier) ? `Match ${text(m.identifier)}` : '';
  return round > 0 ? `${stage}Round ${round}` : `Losers Round ${-round}`;
}

/**
 * The open matches whose two players are known, each as a BracketSet: entrant 1 is `player1_id` (so
 * the first score of each `scores_csv` pair is team 1's); the entrant's id is the id the match names
 * it by (a report's `winner_id` must be one of the match's two).
 */
export function openSets(matches: unknown, participants: Map<string, Obj>, bestOf: 1 | 3 | 5): BracketSet[] {
  const sets: BracketSet[] = [];
  for (const item of list(matches)) {
    const m = obj(obj(item).match);
    const id = text(m.id);
    const p1 = text(m.player1_id);
    const p2 = text(m.player2_id);
    if (id === '' || text(m.state) !== 'open' || p1 === '' || p2 === '') continue;
    const a = entrant(p1, participants.get(p1));
    const b = entrant(p2, participants.get(p2));
    if (!a || !b) continue;
    sets.push({ id, entrants: [a, b], bestOf, round: roundText(m), stream: '', station: text(m.location).trim().slice(0, 64) });
  }
  return sets;
}

/** `scores_csv`: one `a-b` per map, player 1's score first ("13-7,9-13,13-11"). */
export const scoresCsv = (games: ReadonlyArray<{ scores: [number, number] }>): string => games.map((g) => `${g.scores[0]}-${g.scores[1]}`).join(',');
