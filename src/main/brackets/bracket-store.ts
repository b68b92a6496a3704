// BracketStore: the linked brackets and what the service keeps of each linked match (README,
// "Brackets"; docs/brackets.md). Operator data like the schedule: it outlives the process (the
// embedded default writes DATA_DIR/brackets.json atomically and owner-only: it holds each link's
// platform token, which is in that file and nowhere else: never in an answer, a log line, a metric).
// One document, changed by a read-modify-write (`update`), a compare-and-set on a shared adapter.
// With REDIS_URL one node reads and reports the brackets for all (`lead`: a lease), so a platform's
// rate limit is spent once and each report goes out from one place.
// Adapters: brackets/adapters/data-dir/bracket-store.ts, brackets/adapters/redis/bracket-store.ts.
// Contract: test/main/brackets/bracket-store.contract.ts.
import type { BracketStage, BracketTarget, Exchange } from './platform.js';

export type ReportMode = 'auto' | 'confirm';

export interface BracketLink {
  id: string;
  /** The adapter's name ('startgg'). */
  platform: string;
  /** What the operator typed (URL or slug): shown back. */
  input: string;
  target: BracketTarget;
  /** The organiser's API token: kept here only. */
  token: string;
  /** auto: each report goes at once; confirm: each is held until an operator confirms it. */
  mode: ReportMode;
  /** The bracket's name as the platform last gave it ('' before the first read). */
  name: string;
  /** The game's maps as the platform knows them (reports name a map by its id). */
  stages: BracketStage[];
  createdAt: number;
}

/** What the service keeps of one linked match: its fixture's group code is the key. */
export interface LinkedSet {
  groupCode: string;
  linkId: string;
  setId: string;
  /** The fixture's team 1 and team 2 on the platform. */
  entrantIds: [string, string];
  round: string;
  stream: string;
  station: string;
  /**
   * bracket_changed: the bracket changed the match while its series was being played (the fixture
   * kept; `change` says what); set_dropped: the bracket no longer has it, but its series was
   * played; winner_changed: a correction changed the winner the platform holds (an operator resets
   * the set on the platform).
   */
  flags: string[];
  change: string;
  report: ReportState;
}

export interface ReportState {
  /** The last report the platform took (its canonical JSON), null: none. */
  sent: string | null;
  /** Whether the platform holds the match as decided (a winner was taken). */
  completed: boolean;
  /** confirm mode: the report waiting for an operator (null: none). */
  held: string | null;
  /** confirm mode: the report an operator confirmed (it goes out, retried until taken). */
  confirmed: string | null;
  /** The last attempt's error (null after a success). */
  lastError: string | null;
  failures: number;
  /** The last exchanges, newest last (at most 20). */
  exchanges: Exchange[];
}

/** A link's reads as the node that reads it last wrote them. */
export interface SyncState {
  lastSyncAt: number | null;
  nextSyncAt: number | null;
  lastError: string | null;
  /** Failed reads in a row. */
  errors: number;
  /** Matches read at the last successful read. */
  sets: number;
  requests: number;
}

export interface BracketDoc {
  links: BracketLink[];
  sets: Record<string, LinkedSet>;
  /** link id → its reads' state. */
  syncs?: Record<string, SyncState>;
}

export interface BracketStore {
  read(): Promise<BracketDoc>;
  /** Atomic read-modify-write: `change` gets a copy and returns the new document (undefined: no change). Resolves with what is stored. */
  update(change: (doc: BracketDoc) => BracketDoc | undefined): Promise<BracketDoc>;
  /** Takes or renews the lead for `ttlMs` (true: this node reads and reports); one process: always true. */
  lead(nodeId: string, ttlMs: number): Promise<boolean>;
  close(): void;
}

export const emptyReport = (): ReportState => ({ sent: null, completed: false, held: null, confirmed: null, lastError: null, failures: 0, exchanges: [] });
