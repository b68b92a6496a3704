// Match events (README, "Events, webhooks and records"; docs/events.md): what a shard derives from a
// match as messages apply (workers/events/), before the main thread numbers, stores and delivers them
// (main/events/). Plain data: it crosses the thread boundary in the shard's per-cycle output.

/** The version of the event envelope and of every event's data: a new field never raises it (docs/events.md, "Versioning"). */
export const EVENTS_VERSION = 1;

export const MATCH_EVENT_TYPES = [
  'match_created', 'map_selected', 'agent_selected', 'match_started',
  'round_started', 'round_ended',
  'kill', 'multi_kill', 'ace', 'clutch',
  'spike_planted', 'spike_defused', 'spike_detonated',
  'timeout_called', 'timeout_ended', 'tech_pause_started', 'tech_pause_ended',
  'match_ended',
  'observer_failover', 'observer_silent', 'observer_back',
] as const;

export type MatchEventType = (typeof MATCH_EVENT_TYPES)[number];

/** A game team: 0 starts on attack (the game's `team_0`), as in the `score` message. */
export type TeamId = 0 | 1;

/** Where the overlays and the feeds show a team: the feeds' `team` column, their `left…` / `right…` columns. */
export type OverlayTeam = 'left' | 'right';

export interface PlayerRef {
  playerId: string;
  name: string;
  /** The agent's display name ('' before agent select). */
  agent: string;
  team: TeamId;
  overlayTeam: OverlayTeam;
}

export interface TeamRef {
  team: TeamId;
  name: string;
  tricode: string;
  overlayTeam: OverlayTeam;
}

/** `team_0` / `team_1`: rounds won, as in the game's `score` message. */
export interface Score { team_0: number; team_1: number }

export type RoundWinMethod = 'elimination' | 'detonation' | 'defuse' | 'time';

/** Per player at a round's end: the game's running totals and the credits spent in that round's buy phase. */
export interface RoundPlayerLine {
  playerId: string;
  name: string;
  team: TeamId;
  kills: number;
  deaths: number;
  assists: number;
  spent: number;
  overlayTeam: OverlayTeam;
}

/** Per player at the match's end: the game's totals (scoreboard). */
export interface MatchPlayerLine {
  playerId: string;
  name: string;
  agent: string;
  team: TeamId;
  kills: number;
  deaths: number;
  assists: number;
  overlayTeam: OverlayTeam;
}

/** One event as a shard derives it: not numbered yet (the main thread gives it its id and sequence number). */
export interface DerivedEvent {
  type: MatchEventType;
  /** Epoch ms on the match's clock (the service's receive time; the recorded one with TRUST_REPLAY_TIMESTAMPS). */
  at: number;
  /** The round the match was in (0 before the first). */
  round: number;
  /**
   * Orders the events of one match across shard restarts: the match's state version when it was
   * derived × 64 + its index among that message's events. A restored match re-derives the events of
   * the messages applied again, with the same order; the journal keeps only those above the last it stored.
   */
  order: number;
  data: Record<string, unknown>;
}
