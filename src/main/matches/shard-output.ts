// What the shards send back, once per cycle per shard (shards/pool.ts `onOutput`): each frame to
// the FrameBus (once, with its owner's epoch: the direct-call path of every frame; a value, never
// changed afterwards), the frame texts sent later (answers) to the bus as FrameText messages, the dashboard
// summaries to the local routes, the snapshots to the SnapshotStore, and the shard events to the
// directory, team info, the backend sync and the event bus (a map's result, a roster, a match gone:
// to the schedule's keeper, among others).
import type { DerivedEvent } from '../../protocol/match-events.js';
import type { ShardEvent, ShardOut } from '../../protocol/shard-messages.js';
import type { MatchSync } from './match-sync.js';
import type { MainEventBus } from '../base/events.js';
import type { Logger } from '../base/log.js';
import type { Frame, FrameBus } from '../frames/index.js';
import type { MatchDirectory } from './match-directory.js';
import type { SnapshotStore } from './snapshot-store.js';
import type { InputLog } from './input-log.js';
import type { TeamInfoStore } from '../previews/index.js';
import type { LocalRoutes } from './local-routes.js';
import { isRehearsal } from './rehearsal-marker.js';

/** Where the matches' derived events are numbered and kept (events/journal.ts is the one). */
export interface EventSink {
  add(groupCode: string, matchKey: string, matchId: string, organizationId: string, event: DerivedEvent): unknown;
  /** Resolves once the group's match events are in the shared outbox (undefined: they are): its snapshots wait for it. */
  whenShared(groupCode: string): Promise<void> | undefined;
}

export interface ShardOutputDeps {
  log: Logger;
  frames: FrameBus;
  directory: MatchDirectory;
  routes: LocalRoutes;
  snapshots: SnapshotStore;
  teamInfo: TeamInfoStore;
  sync: MatchSync;
  events: MainEventBus;
  /** EVENTS_ENABLED: the events concern's journal, where each derived match event goes straight (docs/architecture.md, "One match event"). */
  journal?: EventSink;
  /** The feeds' tables the shards made (answers to `feed_tables`: main/feeds/shard-tables.ts). */
  feedTables?: (answers: NonNullable<ShardOut['feedTables']>) => void;
  /** The input log (STATE_DIR, Redis): a stored snapshot lets the inputs it holds go. */
  inputLog?: InputLog;
}

export interface PublishCounters {
  framesPublished: number;
  /** WebSocket message bytes of the published frames (each frame once, before fan-out). */
  bytesPublished: number;
}

export class ShardOutput {
  readonly counters: PublishCounters = { framesPublished: 0, bytesPublished: 0 };
  private readonly log: Logger;

  constructor(private readonly deps: ShardOutputDeps) {
    this.log = deps.log.child({ module: 'matches' });
  }

  /** One output of shard `shard`. */
  readonly handle = (shard: number, out: ShardOut): void => {
    const { frames, routes } = this.deps;
    const { codes, frameNos, frameTexts, deltas, sizes } = out;
    let bytes = 0;
    for (let i = 0; i < codes.length; i++) {
      const code = codes[i];
      // The delta is the publication's, not the frame's: the frame the bus keeps as the latest holds
      // none (an idle match's would be as large as the frame: the lobby's first frames, ~10 KB per
      // match; docs/benchmarks.md, Memory).
      const frame: Frame = { groupCode: code, frameNo: frameNos[i], epoch: routes.get(code)?.epoch ?? 0, frameText: frameTexts[i] };
      frames.publish(frame, deltas[i]);
      bytes += sizes[i];
    }
    this.counters.bytesPublished += bytes;
    this.counters.framesPublished += codes.length;
    const late = out.lateFrameTexts;
    if (late) for (let i = 0; i < late.codes.length; i++) frames.publishFrameText({ groupCode: late.codes[i], frameNo: late.frameNos[i], frameText: late.frameTexts[i] });
    if (out.feedTables) this.deps.feedTables?.(out.feedTables);
    if (out.summaries) {
      for (const summary of out.summaries) {
        const match = routes.get(summary.groupCode);
        if (match) match.summary = summary;
      }
    }
    // The events first: a snapshot written to Redis never holds a state whose events are not on their
    // way to the shared outbox (a node that takes the match over derives none for that state).
    for (const event of out.events) this.onEvent(event);
    if (out.snapshots) this.onSnapshots(out.snapshots);
    if (out.stats) this.deps.events.emit('shardStats', { shard, stats: out.stats });
  };

  private onEvent(event: ShardEvent): void {
    const { directory } = this.deps;
    switch (event.t) {
      case 'match_id':
        directory.setMatchId(event.groupCode, event.matchId);
        return;
      case 'removed':
        this.deps.events.emit('matchGone', { groupCode: event.groupCode, reason: event.reason });
        return;
      case 'team_info_final': {
        const teams = directory.get(event.groupCode)?.teams;
        this.deps.teamInfo.setFinal(event.groupCode, { ...event.info, ...teams }).catch((err: Error) => {
          this.log.error({ groupCode: event.groupCode, error: err.message }, 'post-match team info not stored');
        });
        return;
      }
      case 'map_result':
        this.deps.events.emit('mapFinished', { groupCode: event.groupCode, map: event.map, scores: event.scores });
        return;
      case 'roster':
        directory.setRoster(event.groupCode, event.playerIds);
        if (event.sides) this.deps.events.emit('rosterSeen', { groupCode: event.groupCode, sides: event.sides });
        return;
      case 'effect':
        this.deps.sync.run(event.effect);
        return;
      case 'match_event':
        // Outside the overlay's path: an event that cannot be kept is logged, never a crash.
        try {
          const record = this.deps.directory.get(event.groupCode);
          // A rehearsal is never a real match to anyone outside (README, "Rehearsals"): no event, webhook or record.
          if (this.deps.journal && !isRehearsal(record)) this.deps.journal.add(event.groupCode, event.matchKey, event.matchId, record?.organizationId ?? '', event.event);
        } catch (err) {
          this.log.error({ groupCode: event.groupCode, type: event.event.type, error: (err as Error).message }, 'match event not kept');
        }
        return;
      case 'drop':
        this.log.info({ groupCode: event.groupCode, reason: event.reason, type: event.type, detail: event.detail }, 'message dropped');
        return;
      case 'log':
        this.log[event.level]({ ...event.fields }, event.msg);
        return;
      case 'drained':
      case 'summarized':
        return; // the pool's drain / watchSummaries waits for it
    }
  }

  /** The snapshots a shard took (every SNAPSHOT_INTERVAL_MS, of the matches that changed). */
  private onSnapshots(snaps: NonNullable<ShardOut['snapshots']>): void {
    const { routes, directory, snapshots } = this.deps;
    const now = Date.now();
    for (let i = 0; i < snaps.codes.length; i++) {
      const groupCode = snaps.codes[i];
      const local = routes.get(groupCode);
      const match = directory.get(groupCode);
      if (!local || !match) continue;
      local.camSecret = snaps.camSecrets[i];
      const epoch = local.epoch;
      const inputs = snaps.inputs[i];
      snapshots.put({ groupCode, epoch, text: snaps.texts[i], match, savedAt: now }, this.deps.journal?.whenShared(groupCode)).then((stored) => {
        if (stored) this.deps.inputLog?.covered(groupCode, epoch, inputs);
      }, (err: Error) => {
        this.log.error({ groupCode, error: err.message }, 'snapshot not stored');
      });
    }
  }
}
