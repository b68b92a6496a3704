// Challonge as a BracketPlatform (brackets/platform.ts; docs/brackets.md, "Challonge"): its API v1
// (CHALLONGE_API_URL), the organiser's API key as the documented `api_key` parameter (in the query of
// a GET, in the form body of a PUT or POST: never in a URL that could be logged), every request with
// a timeout (BRACKETS_TIMEOUT_MS, through the service's outbound client: metrics labels
// `challonge_read` / `challonge_report`) and within a conservative rate (Challonge v1 publishes none:
// CHALLONGE_RATE, per key). An answer that is not 2xx is a failure; Challonge's `{ "errors": [...] }`
// are kept with it (cut), never the key.
import { createHash } from 'node:crypto';
import { pathSegment, type Outbound } from '../../../backend/index.js';
import type { BracketPlatform, BracketRead, BracketTarget, Exchange, SetReport } from '../../platform.js';
import { RateWindow } from '../../rate-window.js';
import { list, obj, openSets, parseTournament, participantsById, scoresCsv, text } from './parse.js';

/** Challonge v1 documents no rate limit: at most 60 requests in any 60 s per API key (one a second on average). */
export const CHALLONGE_RATE = { requests: 60, windowMs: 60_000 };
/** The series' length when the link names none (Challonge has no best-of). */
export const CHALLONGE_DEFAULT_BEST_OF = 3;

export interface ChallongeOptions {
  /** The API's base, e.g. https://api.challonge.com/v1 (no trailing slash). */
  url: string;
  timeoutMs: number;
  request: Outbound;
  /** The rate limit per key (tests may shorten it); default CHALLONGE_RATE. */
  rate?: { requests: number; windowMs: number };
}

export class ChallongeError extends Error {}

export class ChallongePlatform implements BracketPlatform {
  readonly name = 'challonge';
  /** A decided match's winner can be changed: the match is reopened first (POST …/reopen.json). */
  readonly canChangeWinner = true;
  private readonly limit: RateWindow;

  constructor(private readonly options: ChallongeOptions) {
    const rate = options.rate ?? CHALLONGE_RATE;
    this.limit = new RateWindow(rate.requests, rate.windowMs);
  }

  parseTarget(input: string): BracketTarget {
    return parseTournament(input);
  }

  /** The tournament's name, its participants and its open matches: three GETs. */
  async read(target: BracketTarget, token: string): Promise<BracketRead> {
    const t = this.tournament(target);
    const tournament = obj(obj(await this.call('GET', `/tournaments/${t}.json`, token, 'challonge_read')).tournament);
    const participants = participantsById(await this.call('GET', `/tournaments/${t}/participants.json`, token, 'challonge_read'));
    const matches = await this.call('GET', `/tournaments/${t}/matches.json`, token, 'challonge_read', { state: 'open' });
    const bestOf = target.bestOf ?? CHALLONGE_DEFAULT_BEST_OF;
    return { name: text(tournament.name), sets: openSets(matches, participants, bestOf), stages: [], requests: 3 };
  }

  /**
   * PUT …/matches/{id}.json with the whole state: `match[scores_csv]`, and `match[winner_id]` once
   * decided (Challonge takes a winner only with the scores). When the platform holds the match as
   * decided (`completed`), the match is read first: a different winner (or none) reopens it
   * (POST …/reopen.json, which resets the matches that follow it on Challonge) before the PUT.
   */
  async report(report: SetReport, token: string, completed: boolean, target: BracketTarget): Promise<Exchange> {
    const m = pathSegment(report.setId) ?? '_';
    const form = { 'match[scores_csv]': scoresCsv(report.games), ...(report.winnerId !== null ? { 'match[winner_id]': report.winnerId } : {}) };
    const at = Date.now();
    let operation = 'updateMatch';
    const sent = { tournament: target.ref, matchId: report.setId, ...form };
    try {
      const t = this.tournament(target);
      if (completed) {
        const held = obj(obj(await this.call('GET', `/tournaments/${t}/matches/${m}.json`, token, 'challonge_report')).match);
        if (text(held.state) === 'complete' && text(held.winner_id) !== (report.winnerId ?? '')) {
          operation = 'reopenMatch+updateMatch';
          await this.call('POST', `/tournaments/${t}/matches/${m}/reopen.json`, token, 'challonge_report', {});
        }
      }
      const answer = await this.call('PUT', `/tournaments/${t}/matches/${m}.json`, token, 'challonge_report', form);
      return { at, operation, sent, ok: true, answer: JSON.stringify(answer).slice(0, 500) };
    } catch (err) {
      return { at, operation, sent, ok: false, answer: (err as Error).message.slice(0, 500) };
    }
  }

  close(): void {}

  private tournament(target: BracketTarget): string {
    const t = pathSegment(target.ref);
    if (target.kind !== 'tournament' || t === undefined) throw new ChallongeError(`not a Challonge tournament: ${target.kind} ${target.ref}`);
    return t;
  }

  /**
   * One request: its parsed JSON, or a ChallongeError (no answer, HTTP status with Challonge's
   * `errors`). GET: `params` and `api_key` in the query; PUT/POST: in a form body.
   */
  private async call(method: 'GET' | 'PUT' | 'POST', path: string, token: string, label: string, params: Record<string, string> = {}): Promise<unknown> {
    await this.limit.take(createHash('sha256').update(token).digest('hex'), label === 'challonge_read' ? 'read' : 'report');
    const fields = new URLSearchParams({ ...params, api_key: token });
    const url = `${this.options.url}${path}${method === 'GET' ? `?${fields.toString()}` : ''}`;
    let res;
    try {
      res = await this.options.request(url, { method, label, timeoutMs: this.options.timeoutMs, ...(method === 'GET' ? {} : { body: fields }) });
    } catch (err) {
      throw new ChallongeError(`Challonge did not answer: ${(err as Error).message}`);
    }
    if (res.status < 200 || res.status > 299) {
      const errors = list(obj(res.body).errors).map(text).filter(Boolean);
      throw new ChallongeError(`Challonge answered HTTP ${res.status}${errors.length ? `: ${errors.join('; ')}` : ''}`);
    }
    return res.body;
  }
}
