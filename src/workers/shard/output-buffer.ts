// What a shard sends to the main thread: one ShardOut per command batch or cycle, gathered here and
// posted by flush(), carrying the last batch mark processed (`ack`).
import type { LateFrameTexts, MatchSummary, ShardEvent, ShardOut, ShardSnapshots, ShardStats } from '../../protocol/shard-messages.js';

export class OutputBuffer {
  /** The last batch mark processed: the main thread may forget the batches up to it once snapshotted. */
  mark = 0;
  /**
   * Batches the lost thread had already acknowledged are being applied again (after a crash): their
   * effects, drop logs and logs went out before, so they are not sent (nor frames, nor recordings).
   * The other events go out again, a map's result among them (its keeper records it once: only while
   * the map is live, main/schedule/keeper.ts).
   */
  muted = false;
  private out: ShardOut = emptyOut();

  constructor(private readonly post: (out: ShardOut) => void) {}

  event(e: ShardEvent): void {
    if (this.muted && (e.t === 'effect' || e.t === 'drop' || e.t === 'log' || e.t === 'match_event')) return;
    this.out.events.push(e);
  }

  log(level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>): void {
    this.event({ t: 'log', level, msg, fields });
  }

  /** A frame of `size` characters; `frameText` null: its text stays here (the main thread asks for it when it needs it). */
  frame(groupCode: string, frameNo: number, frameText: string | null, size: number, delta: string | null): void {
    const out = this.out;
    out.codes.push(groupCode);
    out.frameNos.push(frameNo);
    out.frameTexts.push(frameText);
    out.sizes.push(size);
    out.deltas.push(delta);
  }

  /** The frame text of a frame sent earlier without it. */
  lateFrameText(groupCode: string, frameNo: number, frameText: string): void {
    const late = (this.out.lateFrameTexts ??= { codes: [], frameNos: [], frameTexts: [] } satisfies LateFrameTexts);
    late.codes.push(groupCode);
    late.frameNos.push(frameNo);
    late.frameTexts.push(frameText);
  }

  /** The feeds' tables of frame `frameNo` of the match (a `feed_tables` answer), as JSON texts. */
  feedTables(groupCode: string, frameNo: number, scoreboard: string, players: string): void {
    const t = (this.out.feedTables ??= { codes: [], frameNos: [], scoreboards: [], players: [] });
    t.codes.push(groupCode);
    t.frameNos.push(frameNo);
    t.scoreboards.push(scoreboard);
    t.players.push(players);
  }

  stats(stats: ShardStats): void {
    this.out.stats = stats;
  }

  summaries(summaries: MatchSummary[]): void {
    this.out.summaries = summaries;
  }

  snapshots(snapshots: ShardSnapshots): void {
    this.out.snapshots = snapshots;
  }

  /** Posts what was gathered, if anything. */
  flush(): void {
    const out = this.out;
    if (out.codes.length === 0 && out.events.length === 0 && !out.lateFrameTexts && !out.feedTables && !out.stats && !out.summaries && !out.snapshots) return;
    out.ack = this.mark;
    this.out = emptyOut();
    this.post(out);
  }
}

function emptyOut(): ShardOut {
  return { codes: [], frameNos: [], frameTexts: [], sizes: [], deltas: [], events: [] };
}
