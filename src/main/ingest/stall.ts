// The main thread watching its own stalls: a heartbeat every STALL_BEAT_MS; a beat late by more
// than one interval was a stall. Messages that arrived while the thread was busy are read together
// afterwards; for STALL_CREDIT_MS after a stall a socket's budget may also hold what its rate gave
// over the stall, so a client within its rate is not shed because the service itself was slow.
import { STALL_BEAT_MS, STALL_CREDIT_MS } from '../base/limits.js';

export class StallWatch {
  private stallMs = 0;
  private stallEndedAt = 0;
  private lastBeat = Date.now();
  private readonly timer: NodeJS.Timeout;

  constructor() {
    this.timer = setInterval(() => {
      const now = Date.now();
      const lag = now - this.lastBeat - STALL_BEAT_MS;
      if (lag > STALL_BEAT_MS) {
        this.stallMs = lag;
        this.stallEndedAt = now;
      }
      this.lastBeat = now;
    }, STALL_BEAT_MS);
    this.timer.unref();
  }

  /** Tokens a budget of `rate` per second may hold above its size now. */
  credit(now: number, rate: number): number {
    return now - this.stallEndedAt < STALL_CREDIT_MS ? (this.stallMs * rate) / 1000 : 0;
  }

  close(): void {
    clearInterval(this.timer);
  }
}
