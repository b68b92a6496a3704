// The texts of frames that came from a local shard without them (ShardOut.wires null: the shard
// keeps the latest frame, the base of its next delta, and the main thread holds no copy): the
// FrameTextSource of this process (ports/frame-bus.ts), handed by the composition root to whoever
// needs a frame's text (the broadcast listener, REST, the Redis frame bus's keyframe answers).
// Asked for when a recipient needs one (whenText): the shard answers with its latest frame's text
// (ShardOut.texts) and sends the text with the match's next WIRE_HOLD_FRAMES frames, a hold renewed
// while recipients keep using the texts (polling and no-deflate frontends), so those get every frame
// without a round trip each. A shard that is gone or restarting does not answer: its next frame (a
// keyframe after a restore) carries the text.
import { WIRE_HOLD_FRAMES } from '../../protocol/limits.js';
import type { FrameTexts as ShardTexts, ShardCmd } from '../../protocol/shard-messages.js';
import type { Frame, FrameBus, FrameTextSource } from '../ports/frame-bus.js';

/** A hold is renewed when a text is used within this many frames of its end. */
const RENEW_MARGIN_FRAMES = WIRE_HOLD_FRAMES / 2;

interface MatchTexts {
  /** The frame a request is out for, and who waits for its text. */
  pending: Frame | null;
  waiters: (() => void)[];
  /** Frames up to this number come with their text (as far as this side knows). */
  until: number;
  /** The frame whose use was reported last (a frame's use counts once). */
  usedFrameNo: number;
}

export interface FrameTextsDeps {
  /** Sends a command to the shard of the match. */
  toShard: (groupCode: string, cmd: ShardCmd) => void;
  /** Whether a shard of this process runs the match (only its frames' uses concern a shard). */
  runsHere: (groupCode: string) => boolean;
}

export class FrameTexts implements FrameTextSource {
  private readonly matches = new Map<string, MatchTexts>();

  constructor(private readonly deps: FrameTextsDeps) {}

  private match(code: string): MatchTexts {
    let m = this.matches.get(code);
    if (!m) this.matches.set(code, (m = { pending: null, waiters: [], until: 0, usedFrameNo: -1 }));
    return m;
  }

  whenText(frame: Frame, cb: () => void): void {
    if (frame.wireText !== null) return cb();
    const code = frame.groupCode;
    if (!this.deps.runsHere(code)) return cb(); // no shard here has it (another node's frame, its bytes reused: frame-received.ts): moot
    const m = this.match(code);
    if (m.pending === frame) {
      m.waiters.push(cb);
      return;
    }
    const older = m.waiters;
    m.pending = frame;
    m.waiters = [cb];
    m.until = frame.frameNo + WIRE_HOLD_FRAMES;
    this.deps.toShard(code, { t: 'wire', groupCode: code, answer: true });
    wake(older); // superseded: they look again
  }

  /**
   * A text was used: a hold is renewed while texts are used near its end, and a recipient that needs
   * every frame's text (a frame that came with its text: a first frame) starts one, so that the
   * next frames come with their texts, without a request each.
   */
  used(frame: Frame, continuous: boolean): void {
    const code = frame.groupCode;
    if (!this.deps.runsHere(code)) return; // another node's frame: no shard here to tell
    const m = this.match(code);
    if (m.usedFrameNo === frame.frameNo) return;
    m.usedFrameNo = frame.frameNo;
    if (frame.frameNo + RENEW_MARGIN_FRAMES < m.until) return;
    if (frame.frameNo > m.until && !continuous) return; // a keyframe once (a joiner) after the hold
    m.until = frame.frameNo + WIRE_HOLD_FRAMES;
    this.deps.toShard(code, { t: 'wire', groupCode: code, answer: false });
  }

  /** A shard's texts (answers, final frames), after that output's frames were published on `frames`. */
  onTexts(texts: ShardTexts, frames: Pick<FrameBus, 'latest'>): void {
    for (let i = 0; i < texts.codes.length; i++) {
      const code = texts.codes[i];
      const frameNo = texts.frameNos[i];
      const m = this.matches.get(code);
      const pending = m?.pending;
      if (pending && frameNo >= pending.frameNo) { // (an older frame's text: the answer to an earlier request)
        const waiters = m.waiters;
        m.pending = null;
        m.waiters = [];
        if (pending.frameNo === frameNo) pending.wireText ??= texts.texts[i];
        wake(waiters); // with the text, or superseded
      }
      const latest = frames.latest(code);
      if (latest && latest !== pending && latest.frameNo === frameNo) latest.wireText ??= texts.texts[i];
    }
  }

  /** The match is gone from this process. */
  forget(groupCode: string): void {
    const m = this.matches.get(groupCode);
    if (!m) return;
    this.matches.delete(groupCode);
    wake(m.waiters);
  }
}

function wake(waiters: (() => void)[]): void {
  for (const cb of waiters) cb();
}
