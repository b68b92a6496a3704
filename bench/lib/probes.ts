// Latency probes: observers put a unique value in a scoreboard row's money and remember when they
// sent it; a frontend that parses a frame takes the first frame showing each value.
import { eventPayload } from './eio-client.js';

/** Consumes the probes a match_data message shows; records their latency when `measuring`. */
export function consumeProbes(text: string, sentAt: Map<number, number>, measuring: boolean, latencies: number[]): void {
  const now = Date.now();
  const frame = JSON.parse(eventPayload(text)) as { teams: { players: { money: number }[] }[] };
  for (const team of frame.teams) for (const p of team.players) {
    const sent = sentAt.get(p.money);
    if (sent === undefined) continue;
    if (measuring) latencies.push(now - sent);
    sentAt.delete(p.money);
  }
}
