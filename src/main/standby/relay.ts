// The standby observer on the match's owner (docs/reliability.md, "A standby observer"). For a
// match with a standby (armed, or a standby seat sending), every observer payload passes here: the
// primary seat's is applied (and its content key kept, a bounded recent window), the other seat's
// is checked (a JSON object of this group with a type) and held, not applied (a bounded recent
// window). When the primary falls silent while the standby streams, or its socket closed and did
// not come back, within FAILOVER_SILENCE_MS, the seats swap: the standby's held messages after
// the cut (align.ts) are applied in order, then its live data. Matches without a standby
// never come here (matches/routing.ts).
import type { Config } from '../base/config.js';
import type { Logger } from '../base/log.js';
import { whenReady } from '../base/awaitable.js';
import type { ControlBus } from '../control/index.js';
import type { Seat, StandbyStore } from './standby-store.js';
import { afterCut, contentKey, parseEnvelope, type Held } from './align.js';

/** Bounds of the two windows: about 100 s at an observer's peak of 20 msg/s, and never older than a minute. */
const WINDOW_MESSAGES = 2000;
const WINDOW_AGE_MS = 60_000;
/** How often the failover rule is checked, while a match has a relay (no timer otherwise: a service without standbys is not woken ten times a second for nothing). */
const CHECK_MS = 100;
/** A standby that is ahead of a healthy primary (another PC can be faster) is not evidence of its silence before this long. */
const AHEAD_TOLERANCE_MS = 1000;

export type FailoverCause = 'primary_silent' | 'primary_closed' | 'manual';

export interface FailoverRecord { at: number; cause: FailoverCause; from: Seat; to: Seat; applied: number; how: 'cut' | 'content' | 'all' }

interface Relay {
  primary: Seat;
  lastAt: Record<Seat, number>;
  /** Whether a socket of this process holds the seat (what this process knows; 0/false on other nodes). */
  open: Record<Seat, boolean>;
  closedAt: Record<Seat, number>;
  /** When the standby first sent something the primary had not, since the primary's last message (0: nothing). */
  evidenceAt: number;
  recent: Array<{ key: string; at: number }>;
  recentCount: Map<string, number>;
  held: Held[];
  holdDownUntil: number;
  failovers: FailoverRecord[];
  failoverCount: number;
  /** Until when a window armed through this process is open (0: none, or a standby was admitted). */
  armedUntil: number;
}

export interface StandbyRelayDeps {
  config: Config;
  log: Logger;
  store: StandbyStore;
  control: ControlBus;
  /** Whether this process runs the match (its relay lives on the owner only). */
  runsHere(groupCode: string): boolean;
  /** Applies one observer payload of the match (the shard pool's obs). */
  apply(groupCode: string, raw: string, now: number, via?: string): boolean;
  /** When the match's primary observer last sent data here, relay or not (matches/observer-clock.ts; 0: never). */
  primaryLastAt(groupCode: string): number;
  /** Told of each failover (the observer_failover event: events/operational.ts). */
  failedOver?(groupCode: string, record: FailoverRecord): void;
}

export interface RelayView { primary: Seat; failovers: number; lastFailover: FailoverRecord | null; held: number; armedUntil: number }

const other = (s: Seat): Seat => (s === 'group' ? 'standby' : 'group');

export class StandbyRelay {
  private readonly relays = new Map<string, Relay>();
  private readonly log: Logger;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly unsubscribe: () => void;
  /** Failovers by cause since start (ods_observer_failovers_total). */
  readonly totals: Record<FailoverCause, number> = { primary_silent: 0, primary_closed: 0, manual: 0 };

  constructor(private readonly deps: StandbyRelayDeps) {
    this.log = deps.log.child({ module: 'standby' });
    this.unsubscribe = deps.control.subscribe((m) => {
      if (m.t === 'observer_swap') {
        if (deps.runsHere(m.groupCode)) this.swap(m.groupCode);
        return;
      }
      if (m.t === 'standby_watch') {
        if (deps.runsHere(m.groupCode)) this.relayOf(m.groupCode).armedUntil = m.armedUntil;
        return;
      }
      if (m.t !== 'match_removed') return;
      this.relays.delete(m.groupCode);
      deps.store.delete(m.groupCode).catch(() => undefined);
    });
  }

  /** Whether a payload of `seat` for this match goes through the relay. */
  active(groupCode: string, seat: Seat): boolean {
    return seat === 'standby' || this.relays.has(groupCode);
  }

  /**
   * A window was armed until `armedUntil` (0: a standby logged on): the primary's applied messages
   * are kept from now on, on the match's owner. Through another node the owner is told on the
   * ControlBus (`standby_watch`), and this resolves once it was delivered: the primary's messages
   * the standby's first copies will be compared with must not pass the owner unkept (a cut not
   * found, and the standby's copies of them applied again).
   */
  async watch(groupCode: string, armedUntil = 0): Promise<void> {
    if (this.deps.runsHere(groupCode)) {
      this.relayOf(groupCode).armedUntil = armedUntil;
      return;
    }
    await this.deps.control.publish({ t: 'standby_watch', groupCode, armedUntil }).catch((err: Error) => {
      this.log.warn({ groupCode, error: err.message }, 'the owner was not told of the standby (its relay starts with the standby\'s first message)');
    });
  }

  /** An observer payload of `seat` (`via`: the node that forwarded it, matches/owner-inbox.ts); false when it is not forwardable (counted by the caller). */
  receive(groupCode: string, seat: Seat, raw: string, now: number, via?: string): boolean {
    const r = this.relayOf(groupCode);
    r.lastAt[seat] = now;
    if (seat === r.primary) {
      const envelope = parseEnvelope(raw, groupCode);
      this.remember(r, envelope ? contentKey(envelope.type, envelope.data) : contentKey('raw', raw), now);
      r.evidenceAt = 0;
      return this.deps.apply(groupCode, raw, now, via);
    }
    const envelope = parseEnvelope(raw, groupCode);
    if (!envelope) return false;
    const key = contentKey(envelope.type, envelope.data);
    if (!r.recentCount.has(key) && r.evidenceAt === 0) r.evidenceAt = now;
    r.held.push({ raw, key, at: now });
    while (r.held.length > WINDOW_MESSAGES || (r.held.length > 0 && now - r.held[0].at > WINDOW_AGE_MS)) r.held.shift();
    return true;
  }

  /** A socket of this process took or logged on to the seat. */
  socketOpen(groupCode: string, seat: Seat): void {
    const r = this.relays.get(groupCode);
    if (!r) return;
    r.open[seat] = true;
    r.closedAt[seat] = 0;
  }

  /** The socket of this process that held the seat went away. */
  socketClosed(groupCode: string, seat: Seat, now: number): void {
    const r = this.relays.get(groupCode);
    if (!r) return;
    r.open[seat] = false;
    r.closedAt[seat] = now;
  }

  /** Operator swap: the standby becomes the primary now (whatever the hold-down). Null when the match has no relay here. */
  swap(groupCode: string): FailoverRecord | null {
    const r = this.relays.get(groupCode);
    if (!r || !this.deps.runsHere(groupCode)) return null;
    return this.promote(groupCode, r, 'manual', Date.now());
  }

  /** The match is new or gone here: its relay is dropped. */
  forget(groupCode: string): void {
    this.relays.delete(groupCode);
  }

  /** Which seat is primary ('group' for a match without a standby). */
  primaryOf(groupCode: string): Seat {
    return this.relays.get(groupCode)?.primary ?? 'group';
  }

  view(groupCode: string): RelayView | null {
    const r = this.relays.get(groupCode);
    if (!r) return null;
    return { primary: r.primary, failovers: r.failoverCount, lastFailover: r.failovers.at(-1) ?? null, held: r.held.length, armedUntil: r.armedUntil };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.unsubscribe();
  }

  private relayOf(groupCode: string): Relay {
    let r = this.relays.get(groupCode);
    if (r) return r;
    r = {
      primary: 'group', lastAt: { group: 0, standby: 0 }, open: { group: false, standby: false }, closedAt: { group: 0, standby: 0 },
      evidenceAt: 0, recent: [], recentCount: new Map(), held: [], holdDownUntil: 0, failovers: [], failoverCount: 0, armedUntil: 0,
    };
    this.relays.set(groupCode, r);
    if (this.timer === null && !this.closed) {
      this.timer = setInterval(() => this.check(Date.now()), CHECK_MS);
      this.timer.unref();
    }
    // A silence is measured from the seat's last message, also one from before the relay existed: until
    // now only the group seat's messages came here unrelayed, and the clock kept their time.
    r.lastAt.group = this.deps.primaryLastAt(groupCode);
    this.readPrimary(groupCode, r, 0);
    return r;
  }

  /**
   * The primary seat survives a restart (STATE_DIR) and an owner change (Redis): read once. A read
   * the store did not answer is not "no stored seat" (an adopted match whose standby was primary
   * would relay the wrong seat): it is asked again, 1 s doubling to 30 s, while the relay lives.
   */
  private readPrimary(groupCode: string, relay: Relay, failures: number): void {
    whenReady(this.deps.store.get(groupCode), (stored) => {
      if (stored && stored.primary !== relay.primary && relay.failoverCount === 0) relay.primary = stored.primary;
    }, (err) => {
      if (failures === 0) this.log.warn({ groupCode, error: (err as Error)?.message }, 'primary seat not read (retried)');
      const t = setTimeout(() => {
        if (this.relays.get(groupCode) === relay && relay.failoverCount === 0) this.readPrimary(groupCode, relay, failures + 1);
      }, Math.min(30_000, 1000 * 2 ** failures));
      t.unref();
    });
  }

  private remember(r: Relay, key: string, now: number): void {
    r.recent.push({ key, at: now });
    r.recentCount.set(key, (r.recentCount.get(key) ?? 0) + 1);
    while (r.recent.length > WINDOW_MESSAGES || now - r.recent[0].at > WINDOW_AGE_MS) {
      const gone = r.recent.shift()!;
      const n = (r.recentCount.get(gone.key) ?? 1) - 1;
      if (n > 0) r.recentCount.set(gone.key, n); else r.recentCount.delete(gone.key);
    }
  }

  private check(now: number): void {
    if (this.relays.size === 0 && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
      return;
    }
    const threshold = this.deps.config.FAILOVER_SILENCE_MS;
    for (const [groupCode, r] of this.relays) {
      // Another node runs it now (evicted), or a window closed without a standby: nothing to relay.
      const unused = r.armedUntil !== 0 && r.armedUntil < now && r.lastAt.standby === 0 && !r.open.standby && r.failoverCount === 0;
      if (unused || !this.deps.runsHere(groupCode)) {
        this.relays.delete(groupCode);
        continue;
      }
      if (now < r.holdDownUntil) continue;
      const p = r.primary;
      const s = other(p);
      const standbyLive = r.lastAt[s] > 0 && (now - r.lastAt[s] < threshold || r.open[s]);
      if (!standbyLive) continue;
      if (r.closedAt[p] > 0 && !r.open[p] && now - r.closedAt[p] >= threshold) {
        this.promote(groupCode, r, 'primary_closed', now);
      } else if (r.evidenceAt > 0 && now - r.lastAt[p] >= threshold && now - r.evidenceAt >= Math.min(threshold, AHEAD_TOLERANCE_MS) && now - r.lastAt[s] < threshold) {
        this.promote(groupCode, r, 'primary_silent', now);
      }
    }
  }

  private promote(groupCode: string, r: Relay, cause: FailoverCause, now: number): FailoverRecord {
    const from = r.primary;
    const to = other(from);
    const { apply, how } = afterCut(r.recent.map((e) => e.key), r.held);
    // What was applied is remembered whichever seat sent it: a later swap back (an old primary's
    // backlog after its outage) must not apply any of it again.
    for (const h of apply) {
      this.deps.apply(groupCode, h.raw, now);
      this.remember(r, h.key, now);
    }
    r.primary = to;
    r.held = [];
    r.evidenceAt = 0;
    r.lastAt[to] = now;
    r.holdDownUntil = now + this.deps.config.FAILOVER_HOLD_DOWN_MS;
    const record: FailoverRecord = { at: now, cause, from, to, applied: apply.length, how };
    r.failovers.push(record);
    r.failoverCount++;
    if (r.failovers.length > 20) r.failovers.shift();
    this.totals[cause]++;
    this.deps.store.setPrimary(groupCode, to).catch((err: Error) => this.log.error({ groupCode, error: err.message }, 'primary seat not stored'));
    this.log.warn({ groupCode, cause, from, to, applied: apply.length, how }, 'observer failover: the standby is the primary now');
    this.deps.failedOver?.(groupCode, record);
    return record;
  }
}
