// Webhook delivery bounded by the lease (delivery.ts; docs/reliability.md, "One owner of a match's
// outputs"): with a shared outbox a request for a match starts only while this node may still
// deliver it for longer than the request's timeout (journal.outputsLeftMs: its lease, or its outputs lease,
// as this node knows it: a node frozen past it finds it run out when it resumes). A lane put off is
// looked at again every DEFER_MS; a renewal puts it back on its way.
import type { EndpointLanes } from './endpoint-lanes.js';

const DEFER_MS = 250;

export class LeaseGate {
  /** Lanes put off: endpoint → matchKeys, one timer for all. */
  private readonly deferred = new Map<EndpointLanes, Set<string>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly leftMs: (matchKey: string) => number, private readonly timeoutMs: number, private readonly pump: (lanes: EndpointLanes) => void) {}

  /** Whether a request of this match must wait (then it is looked at again later). */
  mustWait(lanes: EndpointLanes, matchKey: string): boolean {
    if (this.leftMs(matchKey) > this.timeoutMs) return false;
    let keys = this.deferred.get(lanes);
    if (!keys) this.deferred.set(lanes, (keys = new Set()));
    keys.add(matchKey);
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      const all = [...this.deferred];
      this.deferred.clear();
      for (const [l, k] of all) {
        for (const key of k) l.ready.add(key);
        this.pump(l);
      }
    }, DEFER_MS).unref();
    return true;
  }

  close(): void {
    clearTimeout(this.timer);
    this.deferred.clear();
  }
}
