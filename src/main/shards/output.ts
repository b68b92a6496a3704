// What the shards send back, once per cycle per shard (shards/pool.ts `onOutput`): each frame to
// the FrameBus (once, with its owner's epoch: the direct-call path of every frame), the dashboard
// summaries to the local routes, the snapshots to the SnapshotStore, and the shard events to the
// directory, team info, the backend sync and the event bus.
import type { DerivedEvent } from '../../protocol/match-events.js';
import type { ShardEvent, ShardOut } from '../../protocol/shard-messages.js';
import type { MatchSync } from '../backend/match-sync.js';
import type { MainEventBus } from '../base/events.js';
import type { Logger } from '../base/log.js';
import type { Frame, FrameBus } from '../ports/frame-bus.js';
import type { MatchDirectory } from '../ports/match-directory.js';
import type { SnapshotStore } from '../ports/snapshot-store.js';
import type { TeamInfoStore } from '../ports/team-info-store.js';
import type { FrameTexts } from '../matches/frame-texts.js';
import type { LocalRoutes } from '../matches/local-routes.js';

export interface ShardOutputDeps {
  log: Logger;
  frames: FrameBus;
  directory: MatchDirectory;
  routes: LocalRoutes;
  snapshots: SnapshotStore;
  teamInfo: TeamInfoStore;
  sync: MatchSync;
  events: MainEventBus;
  /** Texts of frames that came without them (asked for on demand). */
  texts: FrameTexts;
  /** EVENTS_ENABLED: where each derived match event goes (events-out/index.ts `take`). */
  matchEvents?: (groupCode: string, matchKey: string, matchId: string, event: DerivedEvent) => void;
}

export interface PublishCounters {
  framesPublished: number;
  /** WebSocket message bytes of the published frames (each frame once, before fan-out). */
  bytesPublished: number;
}

export class ShardOutput {
  readonly counters: PublishCounters = { framesPublished: 0, bytesPublished: 0 };
  private readonly log: Logger;
  /**
   * Per shard, the frames of its previous output: their deltas are dropped at its next output (an
   * idle match's latest frame would otherwise hold a delta as large as the frame: the lobby's first
   * frames, ~10 KB per match; docs/benchmarks.md, Memory).
   */
  private readonly published: Frame[][] = [];

  constructor(private readonly deps: ShardOutputDeps) {
    this.log = deps.log.child({ module: 'matches' });
  }

  /** One output of shard `shard`. */
  readonly handle = (shard: number, out: ShardOut): void => {
    const { frames, routes, texts } = this.deps;
    const { codes, frameNos, wires, deltas, sizes } = out;
    // Not right after publish: a listener may still send them later in this turn. Every shard
    // reports at least once a second (stats), so a delta outlives its frame's publish by ≤ 1 s.
    const previous = this.published[shard];
    if (previous) for (const frame of previous) frame.deltaText = null;
    const published: Frame[] = [];
    let bytes = 0;
    for (let i = 0; i < codes.length; i++) {
      const code = codes[i];
      const frame: Frame = { groupCode: code, frameNo: frameNos[i], epoch: routes.get(code)?.epoch ?? 0, wireText: wires[i], deltaText: deltas[i] };
      frames.publish(frame);
      if (deltas[i] !== null) published.push(frame);
      bytes += sizes[i];
    }
    this.published[shard] = published;
    this.counters.bytesPublished += bytes;
    this.counters.framesPublished += codes.length;
    if (out.texts) texts.onTexts(out.texts, frames);
    if (out.summaries) {
      for (const summary of out.summaries) {
        const match = routes.get(summary.groupCode);
        if (match) match.summary = summary;
      }
    }
    if (out.snapshots) this.onSnapshots(out.snapshots);
    for (const event of out.events) this.onEvent(event);
    if (out.stats) this.deps.events.emit('shardStats', { shard, stats: out.stats });
  };

  private onEvent(event: ShardEvent): void {
    const { directory } = this.deps;
    switch (event.t) {
      case 'match_id':
        directory.setMatchId(event.groupCode, event.matchId);
        return;
      case 'removed':
        this.deps.texts.forget(event.groupCode);
        this.deps.events.emit('matchGone', { groupCode: event.groupCode, reason: event.reason });
        return;
      case 'team_info_final': {
        const teams = directory.get(event.groupCode)?.teams;
        this.deps.teamInfo.setFinal(event.groupCode, { ...event.info, ...teams }).catch((err: Error) => {
          this.log.error({ groupCode: event.groupCode, error: err.message }, 'post-match team info not stored');
        });
        if (event.result) this.deps.events.emit('mapFinished', { groupCode: event.groupCode, ...event.result });
        return;
      }
      case 'roster':
        directory.setRoster(event.groupCode, event.playerIds);
        if (event.sides) this.deps.events.emit('rosterSeen', { groupCode: event.groupCode, sides: event.sides });
        return;
      case 'effect':
        this.deps.sync.run(event.effect);
        return;
      case 'match_event':
        this.deps.matchEvents?.(event.groupCode, event.matchKey, event.matchId, event.event);
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
      snapshots.put({ groupCode, epoch: local.epoch, text: snaps.texts[i], match, savedAt: now }).catch((err: Error) => {
        this.log.error({ groupCode, error: err.message }, 'snapshot not stored');
      });
    }
  }
}
