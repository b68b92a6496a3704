// InputLog: every observer and auxiliary payload a match's shard is given, numbered per match, kept
// until a stored snapshot of the match covers it, so that a match rebuilt from its snapshot (a
// restart from STATE_DIR, a takeover on Redis) gets the inputs applied after that snapshot again
// and goes on as if nothing had happened (docs/reliability.md, "The input log"; issue 35).
//
// Numbering: each live match counts the payloads sent to its shard (`n` = 1, 2, …, carried to the
// shard with the payload); the shard's snapshot says the last `n` it holds (workers/shard/snapshots.ts
// SlotMeta.inputs). `append` buffers; `flush` writes what is buffered, and the pool calls it before
// it posts a batch, so no shard applies a payload the log has not been given (STATE_DIR: written
// synchronously; Redis: sent first on the one command connection).
//
// Fenced by the owner's epoch (Redis): `since` closes the log to writers of lower epochs before it
// reads, so a deposed owner's late appends are refused, never replayed by its successor.
// Adapters: matches/adapters/state-dir/input-log.ts (segment files), matches/adapters/redis/input-log.ts (a stream
// per match). Contract: test/main/matches/input-log.contract.ts.

import type { Via } from './owner-inbox.js';

/** One payload as the match's shard was given it: `now` its receive time, `n` its number in the match, `via` who forwarded it (another node: matches/owner-inbox.ts). */
export type LoggedInput =
  | { readonly n: number; readonly now: number; readonly kind: 'obs'; readonly raw: string; readonly via?: Via }
  | { readonly n: number; readonly now: number; readonly kind: 'aux'; readonly matchId: string; readonly playerId: string; readonly raw: string; readonly via?: Via };

export interface InputLog {
  /** Buffers one input of the match `groupCode`, run here under `epoch`; written by the next `flush`. */
  append(groupCode: string, epoch: number, input: LoggedInput): void;
  /** Writes what `append` buffered (file: synchronously; Redis: queued on the command connection before anything sent after it). */
  flush(): void;
  /**
   * The match's inputs numbered above `after` (its snapshot's), in order, of epochs from `fromEpoch`
   * (the snapshot's) on; first closes the log to every writer of an epoch below `epoch` (the
   * caller's, who runs the match from now on). Rejects when the store did not answer.
   */
  since(groupCode: string, epoch: number, fromEpoch: number, after: number): Promise<LoggedInput[]>;
  /** A stored snapshot of the match at `epoch` holds its inputs up to `n`: those may go. */
  covered(groupCode: string, epoch: number, n: number): void;
  /** The match is gone (removed, or run by another node now): its inputs may go. `epoch`: the caller's. */
  drop(groupCode: string, epoch: number): void;
  /** Stops the adapter's timers; what is buffered is flushed first. */
  close(): void;
}
