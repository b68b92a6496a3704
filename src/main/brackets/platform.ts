// BracketPlatform: what the brackets concern needs of a bracket platform (docs/brackets.md), in the
// platform's neutral terms, so that each platform is one adapter (brackets/adapters/<platform>/):
// read a linked bracket's matches that are ready or in progress, and report one match's whole
// state so far (its maps, and its winner once decided). The adapters are built by the composition
// root (service.ts); the concern keeps links, fixtures and reports (sync.ts, reporter.ts).

/** What an operator linked, as the platform reads it. */
export interface BracketTarget {
  /** 'event' | 'phase' (start.gg), 'tournament' (Challonge). */
  kind: string;
  /** The platform's id or slug of it. */
  ref: string;
  /** The series' length where the platform has none (Challonge), as linked; absent: the adapter's default. */
  bestOf?: 1 | 3 | 5;
}

/** One side of a bracket match, once known. */
export interface BracketEntrant {
  /** The platform's id of the entrant (reports name the winner by it). */
  id: string;
  name: string;
  /** Logo URL ('' when none). */
  logo: string;
  /** Riot IDs `name#tag` of its players, where the platform has them ([] otherwise). */
  players: string[];
}

/** A bracket match ready or in progress whose two sides are known. */
export interface BracketSet {
  id: string;
  /** Its two sides in the platform's order (entrant 1, entrant 2): the fixture's team 1 and team 2. */
  entrants: [BracketEntrant, BracketEntrant];
  bestOf: 1 | 3 | 5;
  /** The round as the platform names it ('' when none). */
  round: string;
  /** The stream it is assigned to ('' when none). */
  stream: string;
  /** The station it is assigned to ('' when none). */
  station: string;
}

/** A map of the bracket's game the platform knows by id (start.gg: a videogame's stages). */
export interface BracketStage {
  id: string;
  name: string;
}

/** One read of a linked bracket. */
export interface BracketRead {
  /** The bracket's name, as the platform gives it. */
  name: string;
  sets: BracketSet[];
  stages: BracketStage[];
  /** Requests it took (the rate limit's budget). */
  requests: number;
}

/** One map as reported: the fixture's order (team 1 = entrant 1). */
export interface ReportedGame {
  /** 1, 2, 3… */
  num: number;
  /** The winner's entrant id. */
  winnerId: string;
  /** Rounds won: [entrant 1, entrant 2]. */
  scores: [number, number];
  /** The map's stage id on the platform; null when the platform has no stage of that name. */
  stageId: string | null;
}

/** A match's whole state so far: every report carries all of it (idempotent: sending it twice changes nothing). */
export interface SetReport {
  setId: string;
  games: ReportedGame[];
  /** The series' winner's entrant id once decided; null before. */
  winnerId: string | null;
}

/** What was sent and what came back, as kept per fixture and logged (never a token). */
export interface Exchange {
  at: number;
  /** The platform's operation (start.gg: the mutation's name). */
  operation: string;
  /** What was sent (the variables, the body), without credentials. */
  sent: unknown;
  ok: boolean;
  /** The answer, or the error, cut to 500 characters. */
  answer: string;
}

export interface BracketPlatform {
  /** 'startgg', 'challonge' (the adapter's name, kept with each link). */
  readonly name: string;
  /** A report may change the winner of a match the platform holds as decided (Challonge: reopened first); absent: flagged `winner_changed` instead. */
  readonly canChangeWinner?: boolean;
  /** The target of a URL or slug an operator typed; throws Error with a message for the operator when it is none. */
  parseTarget(input: string): BracketTarget;
  /** The bracket's matches ready or in progress (every page, within the platform's rate limit). */
  read(target: BracketTarget, token: string): Promise<BracketRead>;
  /**
   * Reports the match's whole state. `completed`: the platform holds it as decided already (then a
   * correction goes as an update). `target`: the linked bracket (Challonge names a match within its
   * tournament). Resolves with the exchange (ok or not); rejects only on a bug.
   */
  report(report: SetReport, token: string, completed: boolean, target: BracketTarget): Promise<Exchange>;
  close(): void;
}
