// FrameBus on Redis (frames/frame-bus.ts). Local delivery is the memory adapter's: a frame published
// on this node goes straight to this node's subscribers (the owner's own overlays never wait for
// Redis), and the latest frame of each channel this node opened is kept.
//
// Across nodes, once per frame per match (never per overlay): the owner (the node that opened the
// code) SPUBLISHes each frame on framesChannel(code) as a compact binary message (frame-messages.ts),
// so a frame costs ~270 bytes through Redis rather than its ~15 KB. A node whose overlays watch a
// code it does not own follows it through Redis (frame-watch.ts): it asks the owner for a keyframe
// on keyframeChannel(code), which the owner answers with its latest frame as 'K', at most once per
// ANSWER_INTERVAL_MS (once the frame's text is here: a FrameText from its maker), and rebuilds every following
// frame from its delta.
//
// A match's end sends its final frame once more as 'K', then 'X' (a watcher waiting for an answer
// gets the final frame; the others drop the repeat).
//
// Redis unreachable: local delivery goes on, publishing fails and is counted (stats), and when
// Redis is back (conn.onStatus) every watched code asks for a keyframe again and every owner sends
// its latest frames as keyframes (whichever node is back last, its message finds the other
// subscribed).
import type { Logger } from '../../../base/log.js';
import type { Frame, FrameBus, FrameListener, FrameText, FrameTextListener, FrameTextSource } from '../../frame-bus.js';
import { FrameListeners } from '../../frame-listeners.js';
import type { RedisConnection } from '../../../redis/connection.js';
import { FRAME_KIND, frameHeader, frameMessage, newFrameBusStats, type RedisFrameBusStats } from './frame-messages.js';
import { FrameWatches } from './frame-watch.js';

export { FRAME_HEADER_BYTES, FRAME_KIND, type RedisFrameBusStats } from './frame-messages.js';
export { REQUEST_INTERVAL_MS } from './frame-watch.js';
/** An owner answers keyframe requests for a match at most this often. */
export const ANSWER_INTERVAL_MS = 100;

interface Owned {
  epoch: number;
  latest: Frame | undefined;
  /** The latest frame's text: its own, or the one its maker published since (FrameText). */
  latestText: string | null;
  /** A keyframe answer waits for the latest frame's text. */
  answerWaits: boolean;
  requests: { unsubscribe: () => void };
  lastAnswerAt: number;
  answerTimer: NodeJS.Timeout | null;
}

export interface RedisFrameBusOptions {
  log: Logger;
  /** How often a match's keyframe requests are answered at most (default ANSWER_INTERVAL_MS; tests set it long). */
  answerIntervalMs?: number;
}

export class RedisFrameBus implements FrameBus {
  readonly stats: RedisFrameBusStats = newFrameBusStats();
  private readonly log: Logger;
  /** Codes this node opened (runs). */
  private readonly owned = new Map<string, Owned>();
  /** This node's frame listeners (its broadcast listener's overlays), by code. */
  private readonly listeners = new FrameListeners();
  /** Codes this node has listeners for and does not own: followed through Redis. */
  private readonly watches: FrameWatches;
  /** Who makes the texts of frames published here without them (a keyframe answer needs one); without one, every frame published here must carry its text. */
  private textSource: FrameTextSource | null = null;
  private offStatus: (() => void) | null;
  private readonly onPublished = (ok: boolean) => { if (!ok) this.stats.publishFailed++; };

  private readonly answerIntervalMs: number;

  constructor(private readonly conn: RedisConnection, options: RedisFrameBusOptions) {
    this.log = options.log.child({ module: 'frame-bus' });
    this.answerIntervalMs = options.answerIntervalMs ?? ANSWER_INTERVAL_MS;
    this.watches = new FrameWatches({
      conn, log: this.log, stats: this.stats, listeners: this.listeners,
      onMessage: (code, message) => this.receive(code, message),
      publish: (channel, message) => this.publishRaw(channel, message),
    });
    this.offStatus = conn.onStatus((up) => {
      if (!up) return;
      // Frames published meanwhile were lost: whichever side comes back last brings the watchers
      // up to date (the owner's keyframe, or the watcher's request).
      for (const [code, owned] of this.owned) this.onKeyframeRequest(code, owned);
      this.watches.requestAll();
    });
  }

  open(groupCode: string, epoch: number): void {
    const owned = this.owned.get(groupCode);
    if (owned) {
      if (epoch > owned.epoch) owned.epoch = epoch;
      return;
    }
    const o: Owned = { epoch, latest: undefined, latestText: null, answerWaits: false, requests: { unsubscribe: () => undefined }, lastAnswerAt: -Infinity, answerTimer: null };
    o.requests = this.conn.subscribe(this.conn.keys.keyframeChannel(groupCode), () => {
      if (this.owned.get(groupCode) === o) this.onKeyframeRequest(groupCode, o);
    }, true);
    this.owned.set(groupCode, o);
    this.reconcile(groupCode);
  }

  publish(frame: Frame, delta: string | null): void {
    const owned = this.owned.get(frame.groupCode);
    if (owned) {
      if (frame.epoch < owned.epoch) return; // a stale owner's frame
      owned.latest = frame;
      owned.latestText = frame.frameText;
    }
    this.listeners.deliver(frame, delta);
    if (!owned) return;
    if (delta !== null) this.sendFrame(frame, FRAME_KIND.delta, delta);
    else this.sendFrame(frame, FRAME_KIND.keyframe, frame.frameText);
  }

  subscribe(groupCode: string, listener: FrameListener, onText?: FrameTextListener): () => void {
    return this.listeners.add(groupCode, listener, () => this.reconcile(groupCode), onText);
  }

  askFrameText(frame: Frame): string | null {
    const text = frame.frameText; // (a frame rebuilt here makes it when read: frame-received.ts)
    if (text !== null) return text;
    const owned = this.owned.get(frame.groupCode);
    if (owned?.latest === frame && owned.latestText !== null) return owned.latestText;
    this.textSource?.ask(frame);
    return null;
  }

  frameTextUsed(frame: Frame, continuous: boolean): void {
    this.textSource?.used(frame, continuous);
  }

  publishFrameText(text: FrameText): void {
    const owned = this.owned.get(text.groupCode);
    if (owned) {
      if (owned.latest?.frameNo === text.frameNo) owned.latestText ??= text.frameText;
      // A waiting answer goes now (or, the text being an older frame's, asks for the latest's).
      if (owned.answerWaits && !owned.answerTimer) this.answer(text.groupCode, owned);
    }
    this.listeners.deliverText(text);
  }

  setFrameTextSource(source: FrameTextSource): void {
    this.textSource = source;
  }

  latest(groupCode: string): Frame | undefined {
    return this.owned.get(groupCode)?.latest ?? this.watches.latest(groupCode);
  }

  end(groupCode: string): void {
    const owned = this.owned.get(groupCode);
    if (owned) {
      this.release(groupCode, owned);
      // The final frame once more, whole: a watcher still waiting for a keyframe (a gap, a new
      // epoch) gets it, as no answer comes after this; the others have it and drop it. Its text is
      // here (the shard sends it before the removal: lifecycle.ts).
      const last = owned.latest;
      const text = last ? owned.latestText ?? last.frameText : null;
      if (last && text !== null) this.sendFrame(last, FRAME_KIND.keyframe, text);
      this.publishRaw(this.conn.keys.framesChannel(groupCode), frameHeader(FRAME_KIND.closed, owned.epoch, 0, 0));
      this.reconcile(groupCode); // overlays here keep the code: a later owner is followed through Redis
      return;
    }
    this.watches.end(groupCode);
  }

  /** Another node owns the match now: nothing is published from here; this node's overlays follow the new owner through Redis. */
  disown(groupCode: string): void {
    const owned = this.owned.get(groupCode);
    if (!owned) return;
    this.release(groupCode, owned);
    this.reconcile(groupCode);
  }

  /** Stops following every code and answering keyframe requests (the connection stays open). */
  close(): void {
    this.offStatus?.();
    this.offStatus = null;
    for (const [code, o] of this.owned) this.release(code, o);
    this.watches.stopAll();
    this.listeners.clear();
  }

  /**
   * One message of a watched code's frames channel (public for the benchmark and the tests: the
   * receiving side's work without the Redis client's).
   */
  receive(groupCode: string, message: Buffer): void {
    this.watches.receive(groupCode, message);
  }

  private release(groupCode: string, owned: Owned): void {
    this.owned.delete(groupCode);
    owned.requests.unsubscribe();
    if (owned.answerTimer) clearTimeout(owned.answerTimer);
  }

  /** Watch a code iff it has listeners here and is not run here. */
  private reconcile(groupCode: string): void {
    const want = this.listeners.has(groupCode) && !this.owned.has(groupCode);
    const watching = this.watches.has(groupCode);
    if (want && !watching) this.watches.start(groupCode);
    else if (!want && watching) this.watches.stop(groupCode);
  }

  private onKeyframeRequest(groupCode: string, owned: Owned): void {
    if (owned.answerTimer) return; // an answer is on its way
    const wait = owned.lastAnswerAt + this.answerIntervalMs - performance.now();
    if (wait <= 0) return this.answer(groupCode, owned);
    owned.answerTimer = setTimeout(() => {
      owned.answerTimer = null;
      if (this.owned.get(groupCode) === owned) this.answer(groupCode, owned);
    }, wait);
    owned.answerTimer.unref();
  }

  private answer(groupCode: string, owned: Owned): void {
    owned.lastAnswerAt = performance.now();
    owned.answerWaits = false;
    const latest = owned.latest;
    if (!latest) return; // no frame yet: the first one goes as a keyframe anyway
    const text = owned.latestText ?? this.askFrameText(latest);
    if (text === null) {
      // Its text is in the shard (matches/frame-texts.ts): answered once its FrameText is published, or with a newer frame.
      owned.answerWaits = this.textSource !== null;
      return;
    }
    this.stats.keyframesAnswered++;
    this.sendFrame(latest, FRAME_KIND.keyframe, text);
  }

  /** `payload`: the delta ('D') or the frame text ('K'). */
  private sendFrame(frame: Frame, kind: typeof FRAME_KIND.delta | typeof FRAME_KIND.keyframe, payload: string | null): void {
    let message: Buffer;
    try {
      message = frameMessage(frame, kind, payload);
    } catch (err) {
      this.stats.publishFailed++;
      this.log.error({ groupCode: frame.groupCode, error: (err as Error).message }, 'frame not encodable for Redis');
      return;
    }
    if (kind === FRAME_KIND.delta) this.stats.deltasPublished++;
    else this.stats.keyframesPublished++;
    this.stats.framesPublished++;
    this.publishRaw(this.conn.keys.framesChannel(frame.groupCode), message);
  }

  private publishRaw(channel: string, message: Buffer): void {
    if (this.conn.cmd.status !== 'ready') {
      this.stats.publishFailed++;
      return;
    }
    this.stats.bytesPublished += message.length;
    this.conn.publish(channel, message, true).then(this.onPublished);
  }
}
