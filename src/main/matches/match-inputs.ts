// The observer and auxiliary payloads on their way to a match's shard, numbered per match and given
// to the input log (matches/input-log.ts) before the shard applies them; and, when a match is rebuilt
// from a snapshot (a restart, a takeover), the logged inputs after that snapshot given to its shard
// again with their numbers and receive times, so it goes on from where its last owner was
// (docs/reliability.md, "The input log"). Without an input log (no STATE_DIR, no Redis, or
// INPUT_LOG=false) the payloads are still numbered and nothing is kept.
import type { Logger } from '../base/log.js';
import type { InputLog, LoggedInput } from './input-log.js';
import type { Via } from './owner-inbox.js';
import type { ShardPool } from '../shards/pool.js';
import type { LocalRoutes } from './local-routes.js';

export interface MatchInputsDeps {
  pool: ShardPool;
  routes: LocalRoutes;
  log: Logger;
  inputLog?: InputLog;
}

export class MatchInputs {
  constructor(private readonly deps: MatchInputsDeps) {}

  /** An observer payload for `groupCode` (a match run here, or a code nobody runs: its shard drops it; `via`: the node that forwarded it); false when it cannot be packed. */
  obs(groupCode: string, raw: string, now: number, via?: Via): boolean {
    const { pool, routes, inputLog } = this.deps;
    const local = routes.get(groupCode);
    if (!local) return pool.obs(groupCode, raw, now);
    const n = local.inputs + 1;
    if (!pool.obs(groupCode, raw, now, n, via)) return false; // not packable: not numbered either
    local.inputs = n;
    inputLog?.append(groupCode, local.epoch, via === undefined ? { n, now, kind: 'obs', raw } : { n, now, kind: 'obs', raw, via });
    return true;
  }

  /** An auxiliary payload for the matches `groupCodes` on `shard` (run here; `via`: the node that forwarded it). */
  aux(shard: number, groupCodes: string[], matchId: string, playerId: string, raw: string, now: number, via?: Via): void {
    const { pool, routes, inputLog } = this.deps;
    const inputs = groupCodes.map((code) => {
      const local = routes.get(code);
      if (!local) return 0;
      const n = ++local.inputs;
      inputLog?.append(code, local.epoch, via === undefined ? { n, now, kind: 'aux', matchId, playerId, raw } : { n, now, kind: 'aux', matchId, playerId, raw, via });
      return n;
    });
    pool.aux(shard, groupCodes, inputs, matchId, playerId, raw, now, via);
  }

  /**
   * The logged inputs of a match about to be rebuilt here under `epoch` from a snapshot of
   * `snapshotEpoch` holding its inputs up to `after` (none without an input log). Rejects when the
   * store did not answer: the caller tries again rather than rebuild the match without them.
   */
  logged(groupCode: string, epoch: number, snapshotEpoch: number, after: number): Promise<LoggedInput[]> {
    return this.deps.inputLog?.since(groupCode, epoch, snapshotEpoch, after) ?? Promise.resolve([]);
  }

  /**
   * Closes the match's log to every writer of an epoch below `epoch` (a takeover, before it loads the
   * snapshot: a deposed owner's later snapshot can then no longer trim inputs the successor needs, and
   * its later appends are refused). Rejects when the store did not answer.
   */
  async fence(groupCode: string, epoch: number): Promise<void> {
    await this.deps.inputLog?.since(groupCode, epoch, epoch + 1, 0); // reads nothing: the fence is the point
  }

  /**
   * Right after the match's `restore` (or `create`) command: its logged inputs again, in order, with
   * their numbers; the match's count goes on after the last (`after`: the snapshot's, when none).
   */
  replay(groupCode: string, inputs: readonly LoggedInput[], after: number): void {
    const { pool, routes } = this.deps;
    const local = routes.get(groupCode);
    if (!local) return;
    local.inputs = after;
    for (const input of inputs) {
      if (input.kind === 'obs') pool.obs(groupCode, input.raw, input.now, input.n, input.via);
      else pool.aux(local.shard, [groupCode], [input.n], input.matchId, input.playerId, input.raw, input.now, input.via);
      local.inputs = Math.max(local.inputs, input.n);
    }
    if (inputs.length > 0) this.deps.log.info({ groupCode, inputs: inputs.length, from: inputs[0].n, to: local.inputs }, 'inputs after the snapshot applied again from the input log');
  }

  /** A stored snapshot of the match holds its inputs up to `n`. */
  covered(groupCode: string, epoch: number, n: number): void {
    this.deps.inputLog?.covered(groupCode, epoch, n);
  }

  /** The match no longer runs here (removed, evicted): its logged inputs may go (not a successor's). */
  drop(groupCode: string, epoch: number): void {
    this.deps.inputLog?.drop(groupCode, epoch);
  }
}
