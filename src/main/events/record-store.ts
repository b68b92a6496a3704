// RecordStore and DeadLetterStore: where the match records (events/record.ts) and the webhook
// dead letters (events/delivery.ts) are kept for the admin API and the dashboard (docs/events.md,
// "What is kept where"). The embedded default keeps them under STATE_DIR or DATA_DIR
// (events/adapters/state-dir/record-store.ts: each record in its file, the summaries and the dead letters in memory
// and a file); with REDIS_URL they live in Redis (events/adapters/redis/record-store.ts), so that every
// node lists and returns every node's records and dead letters, and the loss of a node loses none.
//
// Asynchronous: a shared adapter answers over the network. A record is kept for the retention
// (EVENTS_RETENTION_MS) from its `storedAt`: past it, it is neither listed nor returned, and `prune`
// removes it. `put` of the same record again changes nothing (a node that takes an ended match over
// keeps its record again). The dead letters are a list capped at the newest `max`; one leaves it when
// its event was redelivered (events/redeliver.ts).
// Contract: test/main/events/record-store.contract.ts.
import type { OverlayTeam, Score, TeamRef } from '../../protocol/match-events.js';
import type { OutputFence } from './event-outbox.js';

export interface RoundLine {
  round: number;
  /** `overlayTeam` absent in a record of events stored before it existed. */
  winner: Omit<TeamRef, 'overlayTeam'> & { overlayTeam?: TeamRef['overlayTeam']; side: 'attack' | 'defense' };
  method: string;
  score: Score;
}

export interface PlayerRoundLine {
  round: number;
  playerId: string;
  name: string;
  team: number;
  kills: number;
  deaths: number;
  assists: number;
  teamKills: number;
  headshots: number;
  firstBloods: number;
  plants: number;
  defuses: number;
  spent: number;
  /** Where the overlays and feeds show the player's team (absent in a record of events stored before it existed). */
  overlayTeam?: OverlayTeam;
}

export interface PlayerMatchLine extends Omit<PlayerRoundLine, 'round'> {
  agent: string;
}

export interface MatchRecord {
  matchKey: string;
  groupCode: string;
  matchId: string;
  map: string;
  teams: unknown;
  startedAt: string;
  endedAt: string;
  /** When this service kept it (wall clock, ISO 8601): the retention counts from here. */
  storedAt: string;
  reason: string;
  score: Score;
  series: unknown;
  rounds: RoundLine[];
  players: PlayerMatchLine[];
  playerRounds: PlayerRoundLine[];
}

/** What GET /admin/records lists of a record (the record itself is fetched one at a time). */
export type RecordSummary = Pick<MatchRecord, 'matchKey' | 'groupCode' | 'matchId' | 'map' | 'teams' | 'score' | 'reason' | 'startedAt' | 'endedAt' | 'storedAt'>;

export function summaryOf(r: MatchRecord): RecordSummary {
  return { matchKey: r.matchKey, groupCode: r.groupCode, matchId: r.matchId, map: r.map, teams: r.teams, score: r.score, reason: r.reason, startedAt: r.startedAt, endedAt: r.endedAt, storedAt: r.storedAt };
}

export interface RecordFilter {
  /** Only this group code's records. */
  groupCode?: string;
  /** At most this many (the newest). */
  limit?: number;
}

export interface RecordStore {
  /** Keeps the record (with its summary) for the retention from its storedAt. */
  /** `fence`: the writer's epoch for the match (events/event-outbox.ts): a shared store refuses the write (OutputFencedError) when another node holds the match's outputs. */
  put(record: MatchRecord, fence?: OutputFence): Promise<void>;
  /** The summaries within the retention, newest (storedAt) first. */
  list(filter?: RecordFilter): Promise<RecordSummary[]>;
  /** One record, undefined when none is kept under this key (or it is past the retention). */
  get(matchKey: string): Promise<MatchRecord | undefined>;
  /** Removes the records past the retention at `now` (epoch ms); resolves with how many it removed. */
  prune(now: number): Promise<number>;
  /** Stops the adapter's own timers and files. */
  close(): void;
}

export interface DeadLetter {
  endpointId: string; eventId: string; type: string; groupCode: string;
  attempts: number; lastError: string; firstAttemptAt: string; deadAt: string;
}

export interface DeadLetterStore {
  /** Keeps it; the oldest go past the cap. */
  add(letter: DeadLetter): Promise<void>;
  /** The kept dead letters, oldest first (at most the cap). */
  list(): Promise<DeadLetter[]>;
  /** Removes every dead letter of this event to this endpoint (it was redelivered); resolves with how many. */
  remove(endpointId: string, eventId: string): Promise<number>;
  /** Stops the adapter's own timers and files. */
  close(): void;
}

/** How many dead letters are kept (the newest). */
export const MAX_DEAD_LETTERS = 1000;

/** The retention's cutoff as an ISO string: a record stored before it is past the retention. */
export function retentionCutoff(now: number, retentionMs: number): string {
  return new Date(now - retentionMs).toISOString();
}
