// The texts of frames that came from a local shard without them (ShardOut.wires null: the shard
// keeps the latest frame, the base of its next delta, and the main thread holds no copy). Asked for
// when a recipient needs one (FramePacket.whenText): the shard answers with its latest frame's text
// (ShardOut.texts) and sends the text with the match's next WIRE_HOLD_FRAMES frames, a hold renewed
// while recipients keep using the texts (polling and no-deflate frontends), so those get every frame
// without a round trip each. A shard that is gone or restarting does not answer: its next frame (a
// keyframe after a restore) carries the text.
import { WIRE_HOLD_FRAMES } from '../../protocol/limits.js';
import type { FrameTexts as ShardTexts, ShardCmd } from '../../protocol/shard-messages.js';
import type { FramePacket, TextSource } from '../frame-packet.js';
import type { FrameBus } from '../ports/frame-bus.js';

/** A hold is renewed when a text is used within this many frames of its end. */
const RENEW_MARGIN_FRAMES = WIRE_HOLD_FRAMES / 2;

interface MatchTexts {
  /** The frame a request is out for. */
  pending: FramePacket | null;
  /** Frames up to this number come with their text (as far as this side knows). */
  until: number;
}

export class FrameTexts implements TextSource {
  private readonly matches = new Map<string, MatchTexts>();

  constructor(
    private readonly frames: FrameBus,
    /** Sends a command to the shard of the match. */
    private readonly toShard: (groupCode: string, cmd: ShardCmd) => void,
  ) {}

  fetch(packet: FramePacket): void {
    const code = packet.groupCode;
    let m = this.matches.get(code);
    if (!m) this.matches.set(code, (m = { pending: null, until: 0 }));
    if (m.pending === packet) return;
    const older = m.pending;
    m.pending = packet;
    m.until = packet.frameNo + WIRE_HOLD_FRAMES;
    this.toShard(code, { t: 'wire', groupCode: code, answer: true });
    older?.superseded();
  }

  /**
   * A text was used: a hold is renewed while texts are used near its end, and a recipient that needs
   * every frame's text (a frame that came with its text: a first frame) starts one, so that the
   * next frames come with their texts, without a request each.
   */
  used(packet: FramePacket, continuous: boolean): void {
    const code = packet.groupCode;
    let m = this.matches.get(code);
    if (!m) {
      if (!continuous) return;
      this.matches.set(code, (m = { pending: null, until: 0 }));
    }
    if (packet.frameNo + RENEW_MARGIN_FRAMES < m.until) return;
    if (packet.frameNo > m.until && !continuous) return; // a keyframe once (a joiner) after the hold
    m.until = packet.frameNo + WIRE_HOLD_FRAMES;
    this.toShard(code, { t: 'wire', groupCode: code, answer: false });
  }

  /** A shard's texts (answers, final frames), after that output's frames were published. */
  onTexts(texts: ShardTexts): void {
    for (let i = 0; i < texts.codes.length; i++) {
      const code = texts.codes[i];
      const frameNo = texts.frameNos[i];
      const m = this.matches.get(code);
      const pending = m?.pending;
      if (pending && frameNo >= pending.frameNo) { // (an older frame's text: the answer to an earlier request)
        m.pending = null;
        if (pending.frameNo === frameNo) pending.setText(texts.texts[i]);
        else pending.superseded();
      }
      const latest = this.frames.latest(code);
      if (latest && latest !== pending && latest.frameNo === frameNo) latest.setText(texts.texts[i]);
    }
  }

  /** The match is gone from this process. */
  forget(groupCode: string): void {
    const m = this.matches.get(groupCode);
    if (!m) return;
    this.matches.delete(groupCode);
    m.pending?.superseded();
  }
}
