// Latency probes: observers put a unique value in a scoreboard row's money and remember when they
// sent it; an overlay that parses a frame takes the first frame showing each value.
import { eventPayload } from './eio-client.js';

/** Probe values stay within the service's bound for counts (0..1e6), far above real money (≤ 9,000). */
export const PROBE_BASE = 100_000;
const PROBE_SPAN = 900_000;

/** The state a sender keeps for its probes. */
export interface ProbeSender { probe: number; sentAt: Map<number, number> }

/** A recorded message's data, with a fresh probe in `money` when it is a scoreboard row. */
export function withProbe(m: ProbeSender, type: unknown, data: unknown, now: number): unknown {
  if (type !== 'scoreboard') return data;
  m.probe = PROBE_BASE + ((m.probe - PROBE_BASE + 1) % PROBE_SPAN);
  m.sentAt.set(m.probe, now);
  return { ...(data as object), money: m.probe };
}

/** Consumes the probes a match_data message shows; records their latency when `measuring`. */
export function consumeProbes(text: string, sentAt: Map<number, number>, measuring: boolean, latencies: number[], onProbe?: (sent: number, received: number) => void): void {
  const now = Date.now();
  const frame = JSON.parse(eventPayload(text)) as { teams: { players: { money: number }[] }[] };
  for (const team of frame.teams) for (const p of team.players) {
    const sent = sentAt.get(p.money);
    if (sent === undefined) continue;
    if (measuring) { latencies.push(now - sent); onProbe?.(sent, now); }
    sentAt.delete(p.money);
  }
}
