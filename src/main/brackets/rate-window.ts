// A sliding-window rate limit (docs/brackets.md, "Rate limits"): at most `limit` requests in any
// `windowMs`, per key (start.gg counts per token). `take` resolves when the request may start: at
// once while the window has room, else when its oldest request leaves it. Requests go in the order
// they asked.
export class RateWindow {
  private readonly started = new Map<string, number[]>();
  private readonly queues = new Map<string, Promise<void>>();

  constructor(private readonly limit: number, private readonly windowMs: number, private readonly now: () => number = Date.now) {}

  take(key: string): Promise<void> {
    const turn = (this.queues.get(key) ?? Promise.resolve()).then(() => this.wait(key));
    this.queues.set(key, turn);
    void turn.then(() => { if (this.queues.get(key) === turn) this.queues.delete(key); });
    return turn;
  }

  private async wait(key: string): Promise<void> {
    for (;;) {
      const now = this.now();
      const times = (this.started.get(key) ?? []).filter((t) => t > now - this.windowMs);
      this.started.set(key, times);
      if (times.length < this.limit) {
        times.push(now);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, times[0] + this.windowMs - now + 1).unref());
    }
  }
}
