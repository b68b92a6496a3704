// EventOutbox: the durable home of the match events and of the webhook endpoints' delivery cursors
// (docs/events.md, "What is kept where"). The embedded default keeps them in files under STATE_DIR
// or DATA_DIR (events/journal-files.ts); with REDIS_URL they live in Redis
// (events/adapters/redis/event-outbox.ts), so that the node that takes over a match (or a restarted one)
// finds every event numbered so far and where each endpoint is, and delivers the rest.
//
// Asynchronous: a shared adapter answers over the network. `append` is ordered and gap-free per
// match: it stores seq n only right after seq n - 1, so two nodes can never number two different
// events alike. `advance` only moves a cursor forward.
// Fenced (docs/reliability.md, "One owner of a match's outputs"): every write carries the writer's
// epoch for the match (`OutputFence`); a shared adapter refuses it (OutputFencedError) once the
// match's outputs are held at a higher epoch: another node took the match, or its orphaned outputs,
// over (MatchOwnership: matches/match-ownership.ts owns who writes them). So a deposed owner's late writes are refused by the store, not avoided by timing.
// Contract: test/main/events/event-outbox.contract.ts.

/** One event as the outbox keeps it: its envelope's JSON (`text`) and what routing needs. */
export interface OutboxEvent {
  matchKey: string;
  /** 1, 2, 3… per match. */
  seq: number;
  /** The derivation order within the match (duplicates after a restore are at or below it). */
  order: number;
  organizationId: string;
  /** The event's JSON, as delivered. */
  text: string;
}

/** Who writes a match's outputs: its group code, the writer's epoch, and whether the match still runs (then its lease's epoch fences too). */
export interface OutputFence {
  groupCode: string;
  epoch: number;
  live: boolean;
}

/** A write refused because the match's outputs are held at a higher epoch than the writer's (it was deposed). */
export class OutputFencedError extends Error {
  constructor(readonly matchKey: string, readonly epoch: number) {
    super(`outputs of ${matchKey} are held at an epoch above ${epoch}: this node was deposed`);
    this.name = 'OutputFencedError';
  }
}

export interface EventOutbox {
  /** Stores the event; false when its seq is not the next one of its match (stored already, here or by another node). Throws OutputFencedError when fenced. */
  append(event: OutboxEvent, fence: OutputFence): Promise<boolean>;
  /** The match's events with a seq above `afterSeq` (0: all), in seq order. */
  events(matchKey: string, afterSeq?: number): Promise<OutboxEvent[]>;
  /** The endpoint has every event of the match up to `seq` (a lower seq than the stored one changes nothing). Throws OutputFencedError when fenced. */
  advance(endpointId: string, matchKey: string, seq: number, fence: OutputFence): Promise<void>;
  /** endpoint id → the last seq of the match it has. */
  cursors(matchKey: string): Promise<Record<string, number>>;
  /** Stops the adapter's own timers and files. */
  close(): void;
}
