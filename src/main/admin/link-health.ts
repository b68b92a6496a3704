// Every link's health for the operator (README, "Operator dashboard and admin API"; docs/reliability.md):
// per live match, its observer link(s) (role, address, last message, rate, the Engine.IO round trip,
// drops by reason), reconnections and resumes of the last 10 minutes, how old the newest data of the
// latest frame is, the overlay side (overlays, frames per second, the slowest overlay's queue and
// whether it is skipping frames), the standby (armed, failovers) and the silent flag: the primary
// observer sent nothing for OBSERVER_SILENT_MS during a live round (not in the lobby, not after the
// end). Times are epoch ms (the page shows ages against serverTime), so a quiet row does not change
// every second and the dashboard's diffs stay small.
import type { BroadcastServer } from '../broadcast/server.js';
import type { Config } from '../base/config.js';
import type { IngestServer } from '../ingest/server.js';
import type { LocalRoutes, DirectoryRecord, ObserverClock } from '../matches/index.js';
import type { FailoverCause, StandbyRelay } from '../standby/index.js';
import type { FrameBus } from '../frames/index.js';
import { seatOf } from '../sessions/index.js';
import type { MatchSummary } from '../../protocol/shard-messages.js';

export interface ObserverLink {
  role: 'primary' | 'standby';
  address: string;
  /** Epoch ms of its last data message (0: none yet). */
  lastMessageAt: number;
  messagesPerSecond: number;
  /** The last Engine.IO ping → pong time the service measured (-1: none yet). */
  rttMs: number;
  dropped: Record<string, number>;
}

export interface LinkHealthRow {
  observers: ObserverLink[];
  /** The last 10 minutes: sessions resumed by a new socket, and logons again with a secret. */
  resumes10m: number;
  reconnects10m: number;
  /** Epoch ms of the newest message applied in the latest frame (0: none). */
  newestDataAt: number;
  /** Epoch ms of the primary observer's last message here (0: none yet). */
  primaryLastAt: number;
  silent: boolean;
  overlay: { connected: number; framesPerSecond: number; slowestBufferedBytes: number; skipping: number };
  /** `held`: the standby's messages held on the owner (not applied); the last failover's `applied` held messages, chosen by `how` (standby/align.ts). */
  standby: { armedUntil: number; primary: 'group' | 'standby'; failovers: number; held: number; lastFailover: { at: number; cause: FailoverCause; applied: number; how: 'cut' | 'content' | 'all' } | null } | null;
}

export interface LinkHealthDeps {
  config: Config;
  ingest: IngestServer;
  broadcast: BroadcastServer;
  routes: LocalRoutes;
  clock: ObserverClock;
  relay: StandbyRelay;
  frames: Pick<FrameBus, 'latest'>;
}

/** Round phases that are not a live round. */
const NOT_LIVE = new Set(['LOBBY', 'game_end']);

export class LinkHealth {
  /** The latest frame number seen per match and when: frames per second between two reads a second or more apart. */
  private readonly fps = new Map<string, { frameNo: number; at: number; rate: number }>();

  constructor(private readonly deps: LinkHealthDeps) {}

  /** Whether the match's primary observer is silent during a live round (only matches this process runs). */
  silent(record: DirectoryRecord, summary: MatchSummary | undefined, now: number): boolean {
    if (!this.deps.routes.get(record.groupCode)) return false;
    const live = summary ? !NOT_LIVE.has(summary.roundPhase) : record.matchId !== '';
    if (!live) return false;
    const last = this.deps.clock.last(record.groupCode) || record.createdAt;
    return now - last > this.deps.config.OBSERVER_SILENT_MS;
  }

  /** ods_matches_observer_silent. */
  silentCount(all: Iterable<DirectoryRecord>, now = Date.now()): number {
    let n = 0;
    for (const m of all) if (this.silent(m, this.deps.routes.get(m.groupCode)?.summary, now)) n++;
    return n;
  }

  /** The observer links of this process's sockets, by group code (one pass over the sockets per build). */
  observersByCode(now: number): Map<string, ObserverLink[]> {
    const out = new Map<string, ObserverLink[]>();
    for (const { session, link, lastMessageAt } of this.deps.ingest.observerLinks()) {
      const role = seatOf(session) === this.deps.relay.primaryOf(session.groupCode) ? 'primary' : 'standby';
      const entry: ObserverLink = { role, address: link.address, lastMessageAt, messagesPerSecond: link.rate(now), rttMs: link.rttMs, dropped: { ...link.dropped } };
      const list = out.get(session.groupCode);
      if (list) list.push(entry); else out.set(session.groupCode, [entry]);
    }
    for (const list of out.values()) list.sort((a, b) => (a.role === b.role ? 0 : a.role === 'primary' ? -1 : 1));
    return out;
  }

  row(record: DirectoryRecord, summary: MatchSummary | undefined, observers: ObserverLink[] | undefined, now: number): LinkHealthRow {
    const code = record.groupCode;
    const { resumes, reconnects } = this.deps.ingest.linkEvents.counts(code, now);
    const view = this.deps.relay.view(code);
    const slow = this.deps.broadcast.slowestOverlay(code);
    return {
      observers: observers ?? [],
      resumes10m: resumes,
      reconnects10m: reconnects,
      newestDataAt: summary?.lastEventAt ?? 0,
      primaryLastAt: this.deps.clock.last(code),
      silent: this.silent(record, summary, now),
      overlay: { connected: this.deps.broadcast.overlayCount(code), framesPerSecond: this.framesPerSecond(code, now), slowestBufferedBytes: slow.bufferedBytes, skipping: slow.skipping },
      standby: view ? {
        armedUntil: view.armedUntil > now ? view.armedUntil : 0, primary: view.primary, failovers: view.failovers, held: view.held,
        lastFailover: view.lastFailover ? { at: view.lastFailover.at, cause: view.lastFailover.cause, applied: view.lastFailover.applied, how: view.lastFailover.how } : null,
      } : null,
    };
  }

  /** Forgets the matches that are gone (called with the live codes once per build). */
  prune(live: ReadonlySet<string>): void {
    for (const code of this.fps.keys()) if (!live.has(code)) this.fps.delete(code);
  }

  private framesPerSecond(groupCode: string, now: number): number {
    const frameNo = this.deps.frames.latest(groupCode)?.frameNo ?? 0;
    const prev = this.fps.get(groupCode);
    if (!prev) {
      this.fps.set(groupCode, { frameNo, at: now, rate: 0 });
      return 0;
    }
    if (now - prev.at >= 1000) {
      prev.rate = Math.round(((frameNo - prev.frameNo) * 1000) / (now - prev.at) * 10) / 10;
      prev.frameNo = frameNo;
      prev.at = now;
    }
    return prev.rate;
  }
}
