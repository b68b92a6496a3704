// GET /feeds/:groupCode/<name>[.json|.csv|.xml][?format=json|csv|xml]: a live match as flat tables
// for graphics systems (vMix, Singular, H2R, NodeCG; README "Feeds for graphics systems",
// docs/feeds.md). No key, like /getTeamInfoForCode and /match: a group code is an identifier only,
// and the tables are a whitelist of what every overlay already receives (feeds/tables.ts).
//
// Every answer carries an ETag (a digest of its body) and Cache-Control: no-cache; a poll whose
// If-None-Match names the current one gets 304 without a body. The tables and texts are made once
// per frame (feeds/cache.ts): a repeat poll of an unchanged match is a lookup and a compare.
import { matchDataJson } from '../../protocol/wire.js';
import type { OutputDelays } from '../output-delay/index.js';
import { FeedCache, matchesEtag } from './cache.js';
import { FORMATS, isFormat, type Format } from './formats.js';
import { FEED_NAMES, type FeedName } from './tables.js';
import type { ShardFeedTables, ShardTablesAnswer } from './shard-tables.js';
import { FeedTimelines, type MatchWhere } from './timeline.js';
import { type FixtureFeed, StandingFeeds } from './standing.js';
import type { Frame, FrameBus } from '../frames/index.js';
import { type MatchDirectory, readLatestFrameText } from '../matches/index.js';
import { bytes, headerBytes, writeNotModified } from '../http/reply.js';
import type { Reply, Router } from '../http/router.js';
import type { HttpRequest, HttpResponse } from '../internals/uws.js';

/** How the feeds get a match's frame: the one door (the frame's text may live in its shard). */
export interface FeedFrames {
  /** The match's latest frame as this process holds it now (maybe without its text), or undefined. */
  peek(groupCode: string): Frame | undefined;
  /** The match's latest frame with its match_data JSON text, or undefined when there is no live match. */
  read(groupCode: string): Promise<{ frame: Frame; json: string } | undefined>;
  /** The tables of a match this process runs, from its shard (feeds/shard-tables.ts); undefined when no shard here runs it. */
  tables?(groupCode: string): Promise<ShardTablesAnswer | undefined> | undefined;
  /** Where the code's live match is (a delayed match's timeline: feeds/timeline.ts). */
  where?(groupCode: string): MatchWhere;
}

/** FeedFrames over the FrameBus (its FrameText messages), as GET /match reads them (matches/rest.ts). */
export function feedFrames(frames: FrameBus, shared?: MatchDirectory, local?: ShardFeedTables): FeedFrames {
  return {
    peek: (groupCode) => frames.latest(groupCode),
    ...(local ? { tables: (groupCode: string) => local.ask(groupCode) } : {}),
    where: (groupCode) => (local?.runsHere(groupCode) ? 'here' : shared?.get(groupCode) ? 'elsewhere' : frames.latest(groupCode) ? 'here' : 'none'),
    async read(groupCode) {
      const found = await readLatestFrameText(frames, shared, groupCode);
      if (!found) return undefined;
      // Not continuous: a poll a second needs one frame's text now, not every frame's (a hold).
      frames.frameTextUsed(found.frame, false);
      return { frame: found.frame, json: matchDataJson(found.frameText) };
    },
  };
}

const NAME = /^([a-z]+)(?:\.([a-z]+))?$/;
/** The names a feed is asked by ("players", "players.csv", ...): looked up, not parsed, per poll. */
const NAMES = new Map<string, { feed: FeedName; format: Format | undefined }>(
  FEED_NAMES.flatMap((feed) => [[feed, { feed, format: undefined }] as const, ...FORMATS.map((format) => [`${feed}.${format}`, { feed, format }] as const)]),
);
/** Every answer's headers besides the ETag; a 304's as one list of names and values. */
const FEED_HEADERS = { 'Cache-Control': 'no-cache', 'Access-Control-Expose-Headers': 'ETag' };
const NOT_MODIFIED_HEADERS = headerBytes(FEED_HEADERS);
const IF_NONE_MATCH = bytes('if-none-match');

/** What a code's feeds answer without a live match (feeds/standing.ts). */
export interface BetweenMatches {
  /** FEEDS_FINAL_HOLD_MS. */
  holdMs: number;
  /** Calls `listener` with a match's last frame text as the match is removed here; returns what stops it. */
  onEnded(listener: (groupCode: string, frameText: string) => void): () => void;
  /** The code's fixture, when it is scheduled. */
  fixture?: (groupCode: string) => FixtureFeed | undefined;
}

/** Registers the feeds; returns what stops a delayed match's timeline (feeds/timeline.ts) and the end listener. */
export function registerFeeds(router: Router, source: FeedFrames, trustReplayTimestamps: boolean, delays?: OutputDelays, between?: BetweenMatches): () => void {
  // The scoreboard's clock: the wall clock; under TRUST_REPLAY_TIMESTAMPS the match's own clock,
  // which is the frame's serverTime (it stands still between frames: replays and tests only).
  const cache = new FeedCache(trustReplayTimestamps ? (serverTime) => serverTime : () => Date.now());
  const standing = between ? new StandingFeeds({ cache, holdMs: between.holdMs, ...(between.fixture ? { fixture: between.fixture } : {}) }) : null;
  const stopEnded = between?.onEnded((groupCode, frameText) => standing!.ended(groupCode, matchDataJson(frameText))) ?? (() => {});

  /** The key of the match's latest tables in the cache (made now when they are not), or undefined when there is no live match. */
  async function current(groupCode: string, gone: () => boolean): Promise<object | undefined> {
    let frame: object | undefined = source.peek(groupCode);
    if (frame && cache.has(frame)) return frame; // (the route answers this case itself; the timelines ask here)
    // A match of this process: its shard makes the tables (no frame text, no parse).
    const made = await source.tables?.(groupCode);
    if (gone()) return undefined;
    if (made) {
      // Kept with the frame they show while it is the latest (a newer one came meanwhile: used for this answer only).
      const latest = source.peek(groupCode);
      frame = latest?.frameNo === made.frameNo ? latest : {};
      cache.loadTables(frame, made.tables, made.playersJson);
      return frame;
    }
    const read = await source.read(groupCode);
    if (!read || gone()) return undefined;
    cache.load(read.frame, read.json);
    return read.frame;
  }

  const timelines = delays ? new FeedTimelines(delays, async (groupCode) => {
    const frame = await current(groupCode, () => false);
    if (!frame) return null;
    return { frame, key: () => { const key = {}; cache.copy(frame, key); return key; } };
  }, (groupCode) => source.where?.(groupCode) ?? 'here') : null;

  /** The answer from `frame`'s tables: 304 when the poll names the text's ETag. */
  function answer(reply: Reply, ifNoneMatch: string, frame: object, feed: FeedName, format: Format, clockAt?: number): void {
    const text = cache.text(frame, feed, format, clockAt)!;
    if (matchesEtag(ifNoneMatch, text.etag)) return reply.notModified(text.etag, NOT_MODIFIED_HEADERS);
    reply.send(200, text.contentType, text.body, { ETag: text.etag, ...FEED_HEADERS });
  }

  /** The live match's answer (`frame` undefined: none is live here). */
  function answerLive(reply: Reply, ifNoneMatch: string, groupCode: string, frame: object | undefined, feed: FeedName, format: Format): void {
    if (frame) standing?.served(groupCode, frame);
    else frame = standing?.lookup(groupCode); // the final state for a while, or the fixture's teams
    if (!frame) return reply.error(404, 'Match not found');
    answer(reply, ifNoneMatch, frame, feed, format);
  }

  /**
   * The poll of most polls, answered from uWS's request before the router copies it: a live match's
   * feed, undelayed, its tables made, named by its ETag, no query, no escape in the code. A 304 from
   * a few lookups and a compare; everything else (a 200, an error, a delayed match, a weak or listed
   * If-None-Match) goes the route's way below, which gives the same 304 for it.
   */
  const early = (req: HttpRequest, res: HttpResponse): boolean => {
    const ifNoneMatch = req.getHeader(IF_NONE_MATCH);
    if (ifNoneMatch === '' || req.getQuery() !== undefined) return false;
    const named = NAMES.get(req.getParameter(1)!);
    const groupCode = req.getParameter(0)!;
    if (!named || groupCode.includes('%') || (timelines !== null && timelines.delayMs(groupCode) > 0)) return false;
    const frame = source.peek(groupCode);
    if (!frame) return false;
    const text = cache.text(frame, named.feed, named.format ?? 'json'); // (undefined: its tables are not made)
    if (text === undefined || text.etag !== ifNoneMatch) return false;
    standing?.served(groupCode, frame);
    writeNotModified(res, text.etagBytes, NOT_MODIFIED_HEADERS);
    return true;
  };

  // Not an async function: a poll of a frame whose tables are made is answered during uWS's call,
  // with no promise and no abort listener (http/router.ts).
  router.get('/feeds/:groupCode/:name', (req, reply) => {
    let groupCode = req.params[0];
    if (groupCode.includes('%')) {
      try {
        groupCode = decodeURIComponent(groupCode);
      } catch {
        return reply.error(400, 'Invalid group code');
      }
    }
    let feed: FeedName;
    let byExtension: string | undefined;
    const named = NAMES.get(req.params[1]);
    if (named) ({ feed, format: byExtension } = named);
    else {
      // Not a feed's name, or one with an unknown extension (answered below).
      const parsed = NAME.exec(req.params[1]);
      if (!parsed || !(FEED_NAMES as readonly string[]).includes(parsed[1])) return reply.error(404, 'Feed not found', { feeds: FEED_NAMES });
      feed = parsed[1] as FeedName;
      byExtension = parsed[2];
    }
    const byQuery = req.query.get('format') ?? undefined;
    if (byExtension !== undefined && byQuery !== undefined && byExtension !== byQuery) return reply.error(400, 'The extension and the format parameter differ');
    const format = byExtension ?? byQuery ?? 'json';
    if (!isFormat(format)) return reply.error(400, 'Unknown format: json, csv or xml');
    const ifNoneMatch = req.headers['if-none-match'];

    const delayMs = timelines?.delayMs(groupCode) ?? 0;
    if (delayMs > 0) {
      // A delayed match: the tables of `delay` ago (feeds/timeline.ts), never the live ones.
      const then = timelines!.at(groupCode, delayMs);
      if ('retryAfterS' in then) {
        const body = JSON.stringify({ error: 'The feeds of this match are delayed; its tables of that long ago are not known yet' });
        return reply.send(503, 'application/json; charset=utf-8', body, { 'Retry-After': String(then.retryAfterS), 'Cache-Control': 'no-cache' });
      }
      if (then.key === null) return reply.error(404, 'Match not found');
      return answer(reply, ifNoneMatch, then.key, feed, format, trustReplayTimestamps ? undefined : Date.now() - delayMs);
    }
    const peeked = source.peek(groupCode);
    if (peeked && cache.has(peeked)) return answerLive(reply, ifNoneMatch, groupCode, peeked, feed, format);
    return current(groupCode, () => reply.finished).then((frame) => {
      if (!reply.finished) answerLive(reply, ifNoneMatch, groupCode, frame, feed, format);
    });
  }, { headers: ['if-none-match'], early });
  return () => {
    timelines?.close();
    stopEnded();
  };
}
