// The operational events (docs/events.md, "Operational events"): what the main thread knows of a
// match's observer link, numbered into the same journal as the shard's events (so the same outbox,
// webhooks and stream carry them): `observer_failover` (the standby relay swapped the primary seat:
// standby/relay.ts), `observer_silent` (the primary sent nothing for OBSERVER_SILENT_MS during a
// live round: the dashboard's silent flag, admin/link-health.ts) and `observer_back` (it sent again).
// Checked once a second on the node that runs the match; a match that leaves this node, or a round
// that stops being live, ends a silence without an `observer_back` (nothing came back).
import type { EventBus, MainEvents } from '../base/events.js';

const CHECK_MS = 1000;

export interface OperationalDeps {
  events: EventBus<MainEvents>;
  /** Numbers one main-thread event into the match's journal (EventOutput.note). */
  note(groupCode: string, type: 'observer_failover' | 'observer_silent' | 'observer_back', data: Record<string, unknown>, at: number): void;
  /** The group codes of the matches this node runs. */
  codes(): Iterable<string>;
  /** Whether the match's primary observer is silent now (LinkHealth.silent). */
  silent(groupCode: string, now: number): boolean;
  /** Epoch ms of the primary observer's last message here (0: none). */
  lastAt(groupCode: string): number;
}

export function watchOperational(deps: OperationalDeps): () => void {
  /** Silent matches: the primary's last message when the silence was noted. */
  const silences = new Map<string, number>();
  const offFailover = deps.events.on('observerFailover', ({ groupCode, cause, from, to, at }) => deps.note(groupCode, 'observer_failover', { cause, from, to }, at));
  const check = () => {
    const now = Date.now();
    // The silent matches still here (a set only while some are: the check runs over every match each
    // second, and an idle node's checks should not allocate).
    const stillHere = silences.size > 0 ? new Set<string>() : null;
    for (const code of deps.codes()) {
      const last = deps.lastAt(code);
      const since = silences.get(code);
      if (since === undefined) {
        if (!deps.silent(code, now)) continue;
        silences.set(code, last);
        stillHere?.add(code);
        deps.note(code, 'observer_silent', { lastMessageAt: last ? new Date(last).toISOString() : null, silentMs: last ? now - last : 0 }, now);
      } else if (last > since) {
        silences.delete(code);
        deps.note(code, 'observer_back', { silentMs: since ? Math.max(0, last - since) : 0 }, last);
      } else if (!deps.silent(code, now)) {
        silences.delete(code); // the round is over (or the match is): not a return
      } else {
        stillHere?.add(code);
      }
    }
    if (stillHere) for (const code of silences.keys()) if (!stillHere.has(code)) silences.delete(code);
  };
  const timer = setInterval(check, CHECK_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    offFailover();
  };
}
