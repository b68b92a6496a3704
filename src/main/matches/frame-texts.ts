// The FrameTextSource of this process (frames/frame-bus.ts): the texts of frames that came from a
// local shard without them (ShardOut.frameTexts null: the shard keeps the latest frame, the base of
// its next delta, and the main thread holds no copy). A recipient asks the FrameBus, the bus asks
// here, and this asks the match's shard (the `frame_texts` command); the shard answers in its output
// (ShardOut.lateFrameTexts), which matches/shard-output.ts publishes on the bus as FrameText messages. The
// shard also sends the text with the match's next FRAME_TEXT_HOLD_FRAMES frames, a hold renewed
// while recipients keep using the texts (polling and no-deflate overlays), so those get every frame
// without a round trip each. A shard that is gone or restarting does not answer: its next frame (a
// keyframe after a restore) carries the text.
//
// Built after the shard pool, and set on the bus by the composition root: nothing here is reached
// before it exists.
import { FRAME_TEXT_HOLD_FRAMES } from '../../protocol/limits.js';
import type { MainEventBus } from '../base/events.js';
import type { Frame, FrameTextSource } from '../frames/index.js';
import type { ShardPool } from '../shards/pool.js';
import type { LocalRoutes } from './local-routes.js';

/** A hold is renewed when a text is used within this many frames of its end. */
const RENEW_MARGIN_FRAMES = FRAME_TEXT_HOLD_FRAMES / 2;

interface MatchTexts {
  /** The frame whose text was asked of the shard last (its answer comes on the bus). */
  asked: Frame | null;
  /** Frames up to this number come with their text (as far as this side knows). */
  until: number;
  /** The frame whose use was reported last (a frame's use counts once). */
  usedFrameNo: number;
}

export interface FrameTextsDeps {
  pool: Pick<ShardPool, 'send' | 'shardOf'>;
  /** The matches this process runs (only their frames' texts are in a shard here). */
  routes: LocalRoutes;
  /** `matchGone`: the match is gone from this process. */
  events: MainEventBus;
}

export class FrameTexts implements FrameTextSource {
  private readonly matches = new Map<string, MatchTexts>();

  constructor(private readonly deps: FrameTextsDeps) {
    deps.events.on('matchGone', ({ groupCode }) => this.matches.delete(groupCode));
  }

  private match(code: string): MatchTexts {
    let m = this.matches.get(code);
    if (!m) this.matches.set(code, (m = { asked: null, until: 0, usedFrameNo: -1 }));
    return m;
  }

  ask(frame: Frame): void {
    const code = frame.groupCode;
    if (this.deps.routes.get(code) === undefined) return; // no shard here has it (another node's frame, its bytes reused: moot)
    const m = this.match(code);
    if (m.asked === frame) return; // its answer is on its way
    m.asked = frame;
    m.until = frame.frameNo + FRAME_TEXT_HOLD_FRAMES;
    this.toShard(code, true);
  }

  /**
   * A text was used: a hold is renewed while texts are used near its end, and a recipient that needs
   * every frame's text (a frame that came with its text: a first frame) starts one, so that the
   * next frames come with their texts, without a request each.
   */
  used(frame: Frame, continuous: boolean): void {
    const code = frame.groupCode;
    if (this.deps.routes.get(code) === undefined) return; // another node's frame: no shard here to tell
    const m = this.match(code);
    if (m.usedFrameNo === frame.frameNo) return;
    m.usedFrameNo = frame.frameNo;
    if (frame.frameNo + RENEW_MARGIN_FRAMES < m.until) return;
    if (frame.frameNo > m.until && !continuous) return; // a keyframe once (a joiner) after the hold
    m.until = frame.frameNo + FRAME_TEXT_HOLD_FRAMES;
    this.toShard(code, false);
  }

  private toShard(groupCode: string, answer: boolean): void {
    const { pool } = this.deps;
    pool.send(pool.shardOf(groupCode), { t: 'frame_texts', groupCode, answer });
  }
}
