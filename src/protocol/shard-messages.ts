// What crosses between the main thread and a shard worker. Everything here is plain data; the
// hot path (observer payloads in, frames out) travels as strings in batched arrays, because
// structured-cloning objects per message costs 10–20× more than strings (docs/stack-notes.md 4).
import type { DerivedEvent } from './match-events.js';

export interface AuthTeamWire { name: string; tricode: string; url: string; attackStart: boolean }

export interface CreateMatchCmd {
  t: 'create';
  groupCode: string;
  now: number;
  logon: {
    groupCode: string;
    leftTeam: AuthTeamWire;
    rightTeam: AuthTeamWire;
    toolsData?: unknown;
    organizationId: string;
    isSupporter: boolean;
    /** Logon fields for the replay header (no key, no secret). */
    obsName: string;
    clientVersion: string;
  };
  /** Created again from its creation record (STATE_DIR at a restart, Redis at a takeover: main/matches/lifecycle.ts): its replay file, if any, is appended to, not replaced. */
  again?: true;
  /** Created again by a node taking it over: its frame numbers go on after its latest frame (every overlay gets a keyframe next). */
  frameNoBase?: number;
}

/**
 * Observer payloads of one batch, packed into one string (a single string crosses threads far
 * cheaper than arrays of them): records separated by RECORD_SEP, each `groupCode FIELD_SEP
 * receiveTime FIELD_SEP input FIELD_SEP via FIELD_SEP raw`, `input` the payload's number in its match
 * (the input log's, main/matches/input-log.ts; 0: not numbered, a code this process does not run),
 * `via` the node that forwarded it and its send number (main/matches/owner-inbox.ts; '' when it came here). The raw JSON text is
 * parsed only in the shard. Neither separator can occur in valid JSON text, and the pool refuses
 * payloads and group codes that contain them.
 */
export interface ObsBatchCmd {
  t: 'obs';
  count: number;
  packed: string;
}

export const RECORD_SEP = '\x1e';
export const FIELD_SEP = '\x1f';

/** One observer record of an ObsBatchCmd's `packed` (records are joined by RECORD_SEP). */
export const packObsRecord = (groupCode: string, receivedAt: number, input: number, via: string, raw: string): string =>
  groupCode + FIELD_SEP + receivedAt + FIELD_SEP + input + FIELD_SEP + via + FIELD_SEP + raw;

/**
 * Auxiliary payloads of one batch, as parallel arrays. The main thread resolves the session's match
 * id to the live matches that have it (its registry is the one match-id index), and sends each
 * payload once per shard with the group codes of those matches on that shard.
 */
export interface AuxBatchCmd {
  t: 'aux';
  groupCodes: string[][]; // the target matches on this shard
  inputs: number[][];     // the payload's number in each of those matches (the input log's)
  vias: string[];         // who forwarded it ('' when it came here; main/matches/owner-inbox.ts)
  matchIds: string[];     // the session's match id
  playerIds: string[];    // the session's player id ('' until known)
  raws: string[];
  nows: number[];
}

export type ShardCmd =
  | CreateMatchCmd
  | ObsBatchCmd
  | AuxBatchCmd
  /** An auxiliary session ended: its player's auxiliary flags are cleared in these matches (those with its match id). */
  | { t: 'aux_disconnected'; groupCodes: string[]; matchId: string; playerId: string; now: number }
  | { t: 'registered'; groupCode: string; registered: boolean }
  | { t: 'playercams'; groupCode: string; result: unknown; now: number }
  | { t: 'mmr'; groupCode: string; result: unknown; now: number }
  /** The schedule (main/fixtures) names the teams and sets tool settings (the series): applied like a logon's, stateVersion raised. */
  | { t: 'schedule'; groupCode: string; teams: [ScheduledTeam, ScheduledTeam]; tools: Record<string, unknown>; now: number }
  /** Operator force-end: a last frame with isRunning false, then removal. */
  | { t: 'remove'; groupCode: string }
  /** Another node owns the match now (its lease passed on): dropped without a frame, a completion or a `removed` event. */
  | { t: 'evict'; groupCode: string }
  | RestoreMatchCmd
  /** Ends each batch the pool posts: the shard acknowledges batches by this number (ShardOut.ack). */
  | { t: 'mark'; mark: number }
  /** Re-applying batches the lost shard had already acknowledged: no frames, effects or drop logs. */
  | { t: 'mute'; on: boolean }
  /** Shutdown drain: every pending frame now and a snapshot of every match; with `endMatches`, every match ended (a last frame with isRunning false) and removed. Answered by the `drained` event. */
  | { t: 'drain'; endMatches: boolean }
  /**
   * Dashboard summaries wanted (`on`: a dashboard is open or /admin/matches was asked) or not: the
   * shard builds none while nobody watches. On `on` it answers at once with the summaries of every
   * match changed since its last one and the `summarized` event.
   */
  | { t: 'summaries'; on: boolean }
  /**
   * The main thread needs the frame texts of the match (a joiner's keyframe, a polling or
   * no-deflate overlay, GET /match/:code, a keyframe request from another node): with `answer`, the
   * latest frame's text now (ShardOut.lateFrameTexts); and the text with each of its next
   * FRAME_TEXT_HOLD_FRAMES frames.
   */
  | { t: 'frame_texts'; groupCode: string; answer: boolean }
  /**
   * GET /feeds polled the match: the feeds' tables of the state its latest frame shows
   * (ShardOut.feedTables), at once, or with its next frame when a change is not framed yet.
   */
  | { t: 'feed_tables'; groupCode: string }
  /** FAULT_INJECTION only: the shard thread dies with an uncaught exception. */
  | { t: 'test_crash' }
  /** The thread's end: timers stopped, replay files closed, its port closed (the thread exits). */
  | { t: 'exit' };

/** A team as the schedule names it (left, right). */
export interface ScheduledTeam { name: string; tricode: string; url: string }

/** A match rebuilt from its snapshot (a restarted shard, or a restart with STATE_DIR). */
export interface RestoreMatchCmd {
  t: 'restore';
  groupCode: string;
  /** workers/shard/snapshots.ts snapshotText() output. */
  snapshot: string;
  /** Kept by the main thread in memory only ('' after a restart from STATE_DIR). */
  playercamSecret: string;
  /** The next frame is numbered above this (every overlay then gets a keyframe). */
  frameNoBase: number;
  /** A restarted shard's: the retained batches follow, and those up to the snapshot's own mark are in it (workers/shard/snapshots.ts). */
  replay?: boolean;
}

export type BackendEffect =
  | { kind: 'register'; groupCode: string; matchId: string; body: unknown }
  | { kind: 'update'; groupCode: string; matchId: string; body: unknown }
  /**
   * `ifRegistering`: the match ended while its registration call was (perhaps) still in flight: the
   * main thread completes it only if such a call gets an HTTP answer (docs/match-rules.md 4.5), else drops it.
   */
  | { kind: 'complete'; groupCode: string; matchId: string; body: unknown; ifRegistering?: true }
  | { kind: 'stats_add'; groupCode: string; matchId: string }
  | { kind: 'stats_region'; groupCode: string; matchId: string; playerId: string }
  | { kind: 'stats_fetch'; groupCode: string; matchId: string; delayMs: number }
  | { kind: 'mmr_fetch'; groupCode: string; matchId: string; playerIds: string[] }
  | { kind: 'playercam_fetch'; groupCode: string; identifier: string; secret: string };

export type ShardEvent =
  | { t: 'match_id'; groupCode: string; matchId: string }
  /** Events derived from the match (protocol/match-events.ts); `matchKey` names this match's instance of the group code. */
  | { t: 'match_event'; groupCode: string; matchKey: string; matchId: string; event: DerivedEvent }
  | { t: 'removed'; groupCode: string; reason: 'ended' | 'inactive' | 'admin' | 'shutdown' }
  /** The reply to a `drain` command: its frames and snapshots are in this output or earlier ones. */
  | { t: 'drained' }
  /** The reply to `summaries` on: the summaries of every changed match are in this output. */
  | { t: 'summarized' }
  /** At game_end: the post-match team info for the backend (main/previews' TeamInfoStore). */
  | { t: 'team_info_final'; groupCode: string; info: { higherScore: 0 | 1; tournamentInfo: unknown; sponsorInfo: unknown; isSupporter: boolean } }
  /**
   * At game_end, right after `team_info_final`: the map played and each side's rounds (left, right),
   * for the series (main/schedule). Sent again when a crash's replay applies the game_end again (not
   * muted, output-buffer.ts): the keeper records a result only while its map is live, so once.
   */
  | { t: 'map_result'; groupCode: string; map: string; scores: [number, number] }
  /** The roster's player ids, sent whenever players were added (auxiliary logons must name one, docs/reliability.md); `sides`: each side's players' `name#tag` (left, right). */
  | { t: 'roster'; groupCode: string; playerIds: string[]; sides?: [string[], string[]] }
  | { t: 'effect'; effect: BackendEffect }
  | { t: 'drop'; groupCode: string; reason: string; type: string; detail?: string }
  | { t: 'log'; level: 'info' | 'warn' | 'error'; msg: string; fields?: Record<string, unknown> };

/** One message per cycle (or leading-edge flush) from a shard. */
export interface ShardOut {
  /** Frames, as parallel arrays: group code, frame number within the match, the frame text (the
   *  WebSocket message, wire.ts; strings cross threads cheaper than bytes), its length, and the
   *  permessage-deflate delta against the match's previous frame. The frame text is null when the
   *  frame has a delta and the main thread did not ask for texts (`frame_texts` command): the shard
   *  keeps the latest frame (its next delta's base) and sends its text on request, so the main
   *  thread holds no copy of it. */
  codes: string[];
  frameNos: number[];
  frameTexts: (string | null)[];
  /** The frame texts' lengths (UTF-16 units), sent with or without the text (the published-bytes counter). */
  sizes: number[];
  /** As latin1 strings: a string crosses threads cheaper than a typed array. */
  deltas: (string | null)[];
  events: ShardEvent[];
  /** Frame texts of frames sent earlier without them: the answers to `frame_texts` requests, and a removed match's final frame. */
  lateFrameTexts?: LateFrameTexts;
  /**
   * Answers to `feed_tables`, parallel arrays (protocol/feed-tables.ts): the scoreboard and serverTime
   * as JSON text, and the players' rows as JSON text (the players feed's JSON body as it is).
   */
  feedTables?: { codes: string[]; frameNos: number[]; scoreboards: string[]; players: string[] };
  stats?: ShardStats;
  /** Dashboard summaries of the matches that changed, at most every SUMMARY_INTERVAL_MS (not per frame). */
  summaries?: MatchSummary[];
  /** The last `mark` the shard had processed when this output left. */
  ack?: number;
  /** Snapshots of the matches that changed since their last one (every SNAPSHOT_INTERVAL_MS). */
  snapshots?: ShardSnapshots;
}

/** Parallel arrays: the match, the frame number, the frame text. */
export interface LateFrameTexts {
  codes: string[];
  frameNos: number[];
  frameTexts: string[];
}

/** Parallel arrays; `mark`: every match of the shard holds the batches up to it (a round's last slice reports the mark it began with). */
export interface ShardSnapshots {
  mark: number;
  codes: string[];
  texts: string[];
  /** The player-camera secrets of those matches (memory only, never written to disk). */
  camSecrets: string[];
  /** The last input (main/matches/input-log.ts) each of those snapshots holds. */
  inputs: number[];
}

/** A live match in a few fields, for the operator dashboard (GET /admin/matches). */
export interface MatchSummary {
  groupCode: string;
  teams: [MatchSummaryTeam, MatchSummaryTeam];
  roundNumber: number;
  roundPhase: string;
  map: string;
  /** Wall-clock receive time of the last applied message (epoch ms). */
  lastEventAt: number;
}

export interface MatchSummaryTeam { name: string; tricode: string; score: number }

export interface ShardStats {
  shard: number;
  matches: number;
  applied: number;
  dropped: Record<string, number>;
  framesSerialized: number;
  cycleMicros: number;
  /** Accepted messages by envelope type since the shard started (at most MAX_TYPE_NAMES type names, then 'other'). */
  appliedByType?: Record<string, number>;
  /** Durations of the cycles since the last stats, in µs. */
  cycles?: number[];
  /** The shard's event-loop delay since the last stats (ms). */
  loopDelayP99Ms?: number;
  loopDelayMaxMs?: number;
}
