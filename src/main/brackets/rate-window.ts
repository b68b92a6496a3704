// A sliding-window rate limit (docs/brackets.md, "Rate limits"): at most `limit` requests in any
// `windowMs`, per key (start.gg counts per token). `take` resolves when the request may start: at
// once while the window has room, else when its oldest request leaves it. Reads never take the last
// `reserved` places of the window: a report (a map's result the bracket's next round waits for)
// always finds room, whatever the reads of a large bracket spent. Each kind goes in the order it
// asked, and neither waits behind the other.
export type RequestKind = 'read' | 'report';

export class RateWindow {
  private readonly started = new Map<string, number[]>();
  private readonly queues = new Map<string, Promise<void>>();

  constructor(private readonly limit: number, private readonly windowMs: number, private readonly reserved = 0, private readonly now: () => number = Date.now) {}

  take(key: string, kind: RequestKind): Promise<void> {
    const queue = `${kind} ${key}`;
    const turn = (this.queues.get(queue) ?? Promise.resolve()).then(() => this.wait(key, kind === 'read' ? this.limit - this.reserved : this.limit));
    this.queues.set(queue, turn);
    void turn.then(() => { if (this.queues.get(queue) === turn) this.queues.delete(queue); });
    return turn;
  }

  private async wait(key: string, limit: number): Promise<void> {
    for (;;) {
      const now = this.now();
      const times = (this.started.get(key) ?? []).filter((t) => t > now - this.windowMs);
      this.started.set(key, times);
      if (times.length < limit) {
        times.push(now);
        return;
      }
      // The window has room again when its (length − limit + 1)-th oldest request leaves it.
      await new Promise((resolve) => setTimeout(resolve, times[times.length - limit] + this.windowMs - now + 1).unref());
    }
  }
}
