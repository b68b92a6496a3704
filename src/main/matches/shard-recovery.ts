// A shard thread died (shards/pool.ts `onCrash`). Its matches are rebuilt in the new thread from
// their latest snapshots, and (mode 'full') the pool applies the batches since then again, so
// nothing is lost. Matches without a snapshot are rebuilt by their `create` in those batches
// ('full') or lost: those go the removal path (events `matchGone`, reason 'lost').
import type { ShardCmd } from '../../protocol/shard-messages.js';
import type { MainEventBus, RecoveryMode } from '../base/events.js';
import type { Logger } from '../base/log.js';
import type { FrameBus } from '../frames/index.js';
import type { SnapshotStore } from './snapshot-store.js';
import type { LocalRoutes } from './local-routes.js';
import { restoreCommand } from './restore-command.js';

export interface RecoveryDeps {
  log: Logger;
  routes: LocalRoutes;
  snapshots: SnapshotStore;
  frames: FrameBus;
  events: MainEventBus;
}

export class ShardRecovery {
  /** Shard crashes and the matches they cost (metrics, reliability tests). */
  readonly counters = { crashes: 0, restored: 0, lost: 0 };
  private readonly log: Logger;

  constructor(private readonly deps: RecoveryDeps) {
    this.log = deps.log.child({ module: 'matches' });
  }

  /** The restore commands for the new thread (none with mode 'none'). */
  readonly onCrash = (shard: number, mode: RecoveryMode): ShardCmd[] => {
    const { routes, snapshots, frames, events } = this.deps;
    this.counters.crashes++;
    const owned = routes.ofShard(shard);
    const cmds: ShardCmd[] = [];
    const lost: string[] = [];
    for (const m of owned) {
      const snap = mode === 'none' ? undefined : snapshots.latest(m.groupCode);
      if (snap) cmds.push({ ...restoreCommand(frames, m.groupCode, snap.text, m.camSecret), replay: true });
      else if (mode !== 'full') lost.push(m.groupCode);
    }
    const restored = owned.length - lost.length;
    this.counters.restored += restored;
    this.counters.lost += lost.length;
    this.log.error({ shard, mode, groupCodes: owned.map((m) => m.groupCode), restored, lost }, 'shard crashed; its matches are rebuilt from their snapshots');
    events.emit('shardRestarted', { shard, mode, restored, lost: lost.length });
    for (const groupCode of lost) events.emit('matchGone', { groupCode, reason: 'lost' });
    return cmds;
  };
}
