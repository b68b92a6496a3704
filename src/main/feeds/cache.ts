// The feeds' tables and texts, made once per frame: a graphics system polls each feed every second
// or faster, and most polls find the frame they saw last (a 304 from a lookup and a string compare).
//
// Keyed by the Frame object (a WeakMap): a frame the FrameBus no longer holds takes its tables with
// it, so nothing here outlives its match and nothing needs to be told a match ended. The ETag is a
// digest of the body, so it is the same on every node of a scale-out deployment and never repeats
// for another content (a restarted match's frame numbers start again; its bodies differ).
import crypto from 'node:crypto';
import { bytes } from '../http/reply.js';
import { CONTENT_TYPES, FORMATS, render, type Format } from './formats.js';
import { PLAYER_COLUMNS, clockSeconds, feedTablesOf, withClock, type FeedName, type FeedTables, type MatchData } from './tables.js';

export interface Rendered {
  readonly body: string;
  readonly etag: string;
  /** The ETag as bytes for uWS (http/reply.ts, `bytes`): a 304 writes it. */
  readonly etagBytes: ArrayBuffer;
  readonly contentType: string;
}

interface FrameTables {
  readonly board: FeedTables['scoreboard'];
  readonly serverTime: number;
  /** The players' rows, or null until a format other than JSON needs them (parsed from playersJson). */
  rows: FeedTables['players'] | null;
  /** The players' rows as JSON text (the JSON feed's body), when a shard sent them so. */
  readonly playersJson: string | null;
  readonly texts: Texts;
}

/** A frame's feed texts, made as polls ask (arrays by format in FORMATS' order: no key strings per poll). */
interface Texts {
  readonly players: Array<Rendered | undefined>;
  /** The scoreboard's latest by format: its clock makes a new one each second while a frame lasts. */
  readonly scoreboard: Array<{ seconds: number; text: Rendered } | undefined>;
}

const texts = (): Texts => ({ players: [], scoreboard: [] });

// crypto.hash (Node ≥ 20.12) is one call without a Hash object; older 20.x keep createHash.
const digest = typeof crypto.hash === 'function'
  ? (text: string): string => crypto.hash('sha1', text, 'base64url')
  : (text: string): string => crypto.createHash('sha1').update(text, 'utf8').digest('base64url');

export class FeedCache {
  private readonly byFrame = new WeakMap<object, FrameTables>();

  /**
   * `now`: the time the scoreboard's clock is shown at, on the match's clock, given the frame's
   * serverTime (the wall clock live; the frame's own time under TRUST_REPLAY_TIMESTAMPS).
   */
  constructor(private readonly now: (serverTime: number) => number) {}

  /** Whether `frame`'s tables are made (a poll of it needs neither its text nor a parse). */
  has(frame: object): boolean {
    return this.byFrame.has(frame);
  }

  /** Makes `frame`'s tables from its match_data JSON text (once per frame). */
  load(frame: object, matchDataJson: string): void {
    if (this.byFrame.has(frame)) return;
    const t = feedTablesOf(JSON.parse(matchDataJson) as MatchData);
    this.byFrame.set(frame, { board: t.scoreboard, serverTime: t.serverTime, rows: t.players, playersJson: null, texts: texts() });
  }

  /** `frame`'s tables as its shard made them from the match's state, the players' as JSON text (main/feeds/shard-tables.ts). */
  loadTables(frame: object, tables: Omit<FeedTables, 'players'>, playersJson: string): void {
    if (!this.byFrame.has(frame)) this.byFrame.set(frame, { board: tables.scoreboard, serverTime: tables.serverTime, rows: null, playersJson, texts: texts() });
  }

  /** `to` gets `from`'s tables (not its texts), when `from`'s are made: a delayed match's timeline keeps them without the frame (feeds/timeline.ts). */
  copy(from: object, to: object): boolean {
    const t = this.byFrame.get(from);
    if (!t) return false;
    this.byFrame.set(to, { ...t, texts: texts() });
    return true;
  }

  /**
   * The feed's text for a frame that was loaded (undefined otherwise). `clockAt`: the time its
   * scoreboard's clock is shown at instead of `now` (a delayed match's feeds: the delay ago).
   */
  text(frame: object, feed: FeedName, format: Format, clockAt?: number): Rendered | undefined {
    const t = this.byFrame.get(frame);
    if (!t) return undefined;
    const f = FORMATS.indexOf(format);
    if (feed === 'players') return (t.texts.players[f] ??= this.rendered(format, t.playersJson !== null && format === 'json'
      ? t.playersJson // JSON.stringify of the rows, made by the shard: render('json') would give the same text
      : render(format, (t.rows ??= JSON.parse(t.playersJson!) as FeedTables['players']), PLAYER_COLUMNS, 'players')));
    const seconds = clockSeconds(t.board.clock, clockAt ?? this.now(t.serverTime));
    const kept = t.texts.scoreboard[f];
    if (kept?.seconds === seconds) return kept.text;
    const row = withClock(t.board.row, t.board.clock, seconds);
    const text = this.rendered(format, render(format, [row], Object.keys(row), 'scoreboard'));
    t.texts.scoreboard[f] = { seconds, text };
    return text;
  }

  private rendered(format: Format, body: string): Rendered {
    const etag = `"${digest(body).slice(0, 22)}"`;
    return { body, etag, etagBytes: bytes(etag), contentType: CONTENT_TYPES[format] };
  }
}

/** Whether an If-None-Match header value names `etag` (a list, weak forms, or *). */
export function matchesEtag(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch === etag) return true; // a poller's usual form
  if (ifNoneMatch === '') return false;
  if (ifNoneMatch.trim() === '*') return true;
  for (const part of ifNoneMatch.split(',')) {
    const tag = part.trim();
    if (tag === etag || (tag.startsWith('W/') && tag.slice(2) === etag)) return true;
  }
  return false;
}
