// The operator dashboard's data: one row per live match and the service's totals, served as JSON
// (GET /admin/matches) and pushed to open dashboards as server-sent events (GET /dashboard/events).
//
// Cost model: nothing here runs per frame. While a dashboard is open (or for SUMMARY_LEASE_MS after
// a GET /admin/matches) the shards send a few-field summary of each match that changed, at most
// every 500 ms (workers/shard/summaries.ts), and none otherwise; the first snapshot waits for their answer
// to being turned on, which carries every match changed since its last summary. This module samples the counters once a second (for the
// frames/s chart) and, only while a dashboard is open, builds the rows once a second, diffs them
// against the last rows sent, and writes one serialized update to every open dashboard. A dashboard
// whose connection is congested is skipped and gets a full snapshot once it has drained.
import type { BroadcastServer } from '../broadcast/server.js';
import type { IngestServer } from '../ingest/server.js';
import { isRehearsal, type LocalRoutes, type MatchDirectory, type PublishCounters } from '../matches/index.js';
import type { ShardTotals } from '../shards/totals.js';
import type { FrameBus } from '../frames/index.js';
import type { ResponseStream } from '../http/response-stream.js';
import { DASHBOARD_HISTORY_POINTS, DASHBOARD_SAMPLE_MS, SUMMARY_LEASE_MS } from '../base/limits.js';
import type { LinkHealth, LinkHealthRow } from './link-health.js';

export interface DashboardDeps {
  directory: MatchDirectory;
  /** The shard and summary of each match this process runs. */
  routes: LocalRoutes;
  published: PublishCounters;
  shardTotals: ShardTotals;
  /** Each match's latest frame (its number: the row's frameNo). */
  frames: Pick<FrameBus, 'latest'>;
  ingest: IngestServer;
  broadcast: BroadcastServer;
  /** DASHBOARD_MAX_OPEN. */
  maxOpen: number;
  /** Turns the shards' summaries on (resolves once they are all in `routes`) or off (ShardPool.watchSummaries). */
  watchSummaries: (on: boolean) => Promise<void>;
  /** REDIS_URL: the node that runs a match (its row's `node`; sockets and summaries are this node's own). */
  ownerOf?: (groupCode: string) => string | undefined;
  /** Each match's links (observers, overlays, standby) and the silent flag (link-health.ts). */
  links?: LinkHealth;
  /** A scheduled match's mismatch flags (schedule/keeper.ts): the row's `mismatch`. */
  mismatchOf?: (groupCode: string) => string[] | undefined;
}

export interface MatchRow {
  groupCode: string;
  matchId: string;
  /** The shard thread that runs it (-1: another process runs it). */
  shard: number;
  teams: [{ name: string; tricode: string; score: number }, { name: string; tricode: string; score: number }];
  roundNumber: number;
  roundPhase: string;
  map: string;
  /** Epoch ms of the last applied message (the dashboard shows its age against `serverTime`). */
  lastEventAt: number;
  createdAt: number;
  observers: number;
  auxiliaries: number;
  overlays: number;
  /** Number of the match's latest frame (the frames its overlays were sent since it started; it jumps after a shard restart); 0 before the first. */
  frameNo: number;
  /** REDIS_URL only: the node that runs it ('' while no node does: its owner is gone and nobody adopted it yet). */
  node?: string;
  /** A rehearsal (README, "Rehearsals"): a recording played into the group code, not a live game. */
  rehearsal?: true;
  /** The health of its links (admin/link-health.ts); rows flagged `links.silent` come first. */
  links?: LinkHealthRow;
  /** A scheduled code whose match is not the fixture's (docs/fixtures.md): `team_names`, `players`. */
  mismatch?: string[];
}

export interface Totals {
  matches: number;
  sockets: { ingest: number; broadcast: number; observers: number; auxiliaries: number; overlays: number };
  framesPerSecond: number;
  /** WebSocket message bytes of the frames the shards produced, per second (each frame once). */
  frameBytesPerSecond: number;
  /** Bytes written to overlays per second (after the once-per-match compression). */
  egressBytesPerSecond: number;
  dropped: { ingest: Record<string, number>; shards: Record<string, number>; broadcast: Record<string, number> };
}

export interface DashboardSnapshot {
  serverTime: number;
  matches: MatchRow[];
  totals: Totals;
  history: { intervalMs: number; framesPerSecond: number[] };
  /** Open dashboards, and the main-thread time the last pushed update took to build and write (ms). */
  dashboards: { open: number; lastUpdateMs: number };
}

/** `ready`: the summaries were on when its first snapshot went out (until then no update either). */
interface Client { stream: ResponseStream; needsFull: boolean; ready: boolean }

type RowTeam = MatchRow['teams'][number];

const teamFromLogon = (t: unknown): RowTeam => {
  const team = (t ?? {}) as { name?: unknown; tricode?: unknown };
  return { name: typeof team.name === 'string' ? team.name : '', tricode: typeof team.tricode === 'string' ? team.tricode : '', score: 0 };
};

export class Dashboard {
  private readonly timer: NodeJS.Timeout;
  private readonly history: number[] = [];
  private readonly clients = new Set<Client>();
  private last = { at: Date.now(), frames: 0, bytes: 0, egress: 0 };
  private rates = { frames: 0, bytes: 0, egress: 0 };
  /** The rows as last pushed (JSON per group code): the base of the next diff. */
  private sent = new Map<string, string>();
  private lastUpdateMs = 0;
  /** The shards' summaries are on (resolves once complete), or null; GET /admin/matches keeps them on until leaseUntil. */
  private watching: Promise<void> | null = null;
  private leaseUntil = 0;

  constructor(private readonly deps: DashboardDeps) {
    const c = this.counters();
    this.last = { at: Date.now(), ...c };
    this.timer = setInterval(() => this.tick(), DASHBOARD_SAMPLE_MS);
    this.timer.unref();
  }

  /** DASHBOARD_MAX_OPEN dashboards are open: no more event streams. */
  get full(): boolean {
    return this.clients.size >= this.deps.maxOpen;
  }

  private counters() {
    return { frames: this.deps.published.framesPublished, bytes: this.deps.published.bytesPublished, egress: this.deps.broadcast.counters.bytes };
  }

  /** Once a second: the rates and the chart point; then, when a dashboard is open, an update. */
  private tick(): void {
    const now = Date.now();
    const c = this.counters();
    const dt = Math.max(1, now - this.last.at) / 1000;
    this.rates = {
      frames: Math.round((c.frames - this.last.frames) / dt),
      bytes: Math.round((c.bytes - this.last.bytes) / dt),
      egress: Math.round((c.egress - this.last.egress) / dt),
    };
    this.last = { at: now, ...c };
    this.history.push(this.rates.frames);
    if (this.history.length > DASHBOARD_HISTORY_POINTS) this.history.shift();
    if (this.clients.size > 0) this.push(now);
    else if (this.watching && now > this.leaseUntil) {
      this.watching = null;
      void this.deps.watchSummaries(false);
    }
  }

  /** The shards' summaries on; resolves once every changed match's is in. */
  private watch(): Promise<void> {
    this.watching ??= this.deps.watchSummaries(true);
    return this.watching;
  }

  /** Every live match, with its summary and socket counts. */
  rows(): MatchRow[] {
    const { directory, routes, frames, ingest, broadcast } = this.deps;
    const observers = new Map<string, number>();
    const auxiliaries = new Map<string, number>();
    for (const s of ingest.connectedSessions()) {
      if (s.role === 'observer') observers.set(s.groupCode, (observers.get(s.groupCode) ?? 0) + 1);
      else if (s.matchId) auxiliaries.set(s.matchId, (auxiliaries.get(s.matchId) ?? 0) + 1);
    }
    const rows: MatchRow[] = [];
    const now = Date.now();
    const links = this.deps.links;
    const byCode = links?.observersByCode(now);
    for (const m of directory.all()) {
      const local = routes.get(m.groupCode);
      const sum = local?.summary;
      rows.push({
        groupCode: m.groupCode,
        matchId: m.matchId,
        shard: local?.shard ?? -1,
        teams: sum ? [{ ...sum.teams[0] }, { ...sum.teams[1] }] : [teamFromLogon(m.teams.leftTeam), teamFromLogon(m.teams.rightTeam)],
        roundNumber: sum?.roundNumber ?? 0,
        roundPhase: sum?.roundPhase ?? 'LOBBY',
        map: sum?.map ?? '',
        lastEventAt: sum?.lastEventAt ?? m.createdAt,
        createdAt: m.createdAt,
        observers: observers.get(m.groupCode) ?? 0,
        auxiliaries: m.matchId ? auxiliaries.get(m.matchId) ?? 0 : 0,
        overlays: broadcast.overlayCount(m.groupCode),
        frameNo: frames.latest(m.groupCode)?.frameNo ?? 0,
        ...(this.deps.ownerOf ? { node: this.deps.ownerOf(m.groupCode) ?? '' } : {}),
        ...(isRehearsal(m) ? { rehearsal: true as const } : {}),
        ...(links ? { links: links.row(m, sum, byCode?.get(m.groupCode), now) } : {}),
      });
      const mismatch = this.deps.mismatchOf?.(m.groupCode);
      if (mismatch) rows[rows.length - 1].mismatch = mismatch;
    }
    links?.prune(new Set(rows.map((r) => r.groupCode)));
    // A silent observer's match first (its row highlighted on the page).
    return links ? rows.sort((a, b) => Number(b.links?.silent ?? false) - Number(a.links?.silent ?? false)) : rows;
  }

  totals(rows: MatchRow[]): Totals {
    const { shardTotals, ingest, broadcast } = this.deps;
    let observers = 0;
    let auxiliaries = 0;
    for (const s of ingest.connectedSessions()) {
      if (s.role === 'observer') observers++;
      else auxiliaries++;
    }
    return {
      matches: rows.length,
      sockets: {
        ingest: ingest.io.engine.clientsCount,
        broadcast: broadcast.io.engine.clientsCount,
        observers,
        auxiliaries,
        overlays: broadcast.overlayCount(),
      },
      framesPerSecond: this.rates.frames,
      frameBytesPerSecond: this.rates.bytes,
      egressBytesPerSecond: this.rates.egress,
      dropped: {
        ingest: { ...ingest.dropped },
        shards: { ...shardTotals.dropped },
        broadcast: broadcast.counters.skipped > 0 ? { slow_frontend_skipped: broadcast.counters.skipped } : {},
      },
    };
  }

  /** GET /admin/matches: the snapshot once the shards' summaries are on and in (the summaries stay on for SUMMARY_LEASE_MS). */
  async currentSnapshot(): Promise<DashboardSnapshot> {
    this.leaseUntil = Date.now() + SUMMARY_LEASE_MS;
    await this.watch();
    return this.snapshot();
  }

  /** The rows and totals as they are now (the first event of a dashboard; currentSnapshot). */
  snapshot(now = Date.now()): DashboardSnapshot {
    const matches = this.rows();
    return {
      serverTime: now, matches, totals: this.totals(matches), history: { intervalMs: DASHBOARD_SAMPLE_MS, framesPerSecond: [...this.history] },
      dashboards: { open: this.clients.size, lastUpdateMs: Math.round(this.lastUpdateMs * 100) / 100 },
    };
  }

  /** A dashboard's event stream: a full snapshot now, then at most one update a second. False when too many are open. */
  attach(stream: ResponseStream): boolean {
    if (this.full) return false;
    const client: Client = { stream, needsFull: true, ready: false };
    this.clients.add(client);
    stream.onClose(() => {
      this.clients.delete(client);
      if (this.clients.size === 0) {
        this.sent.clear();
        this.leaseUntil = Math.max(this.leaseUntil, Date.now() + SUMMARY_LEASE_MS); // a reload reopens it at once
      }
    });
    void this.watch().then(() => {
      client.ready = true;
      if (!stream.closed && this.clients.has(client)) this.sendFull(client, sseMessage('full', JSON.stringify(this.snapshot())));
    });
    return true;
  }

  private sendFull(client: Client, message: string): void {
    client.needsFull = false;
    if (!client.stream.write(message)) client.needsFull = true; // buffered by uWS: wait until drained
  }

  private push(now: number): void {
    const started = performance.now();
    const rows = this.rows();
    const totals = this.totals(rows);
    const changed: MatchRow[] = [];
    const next = new Map<string, string>();
    for (const row of rows) {
      const json = JSON.stringify(row);
      next.set(row.groupCode, json);
      if (this.sent.get(row.groupCode) !== json) changed.push(row);
    }
    const removed: string[] = [];
    for (const code of this.sent.keys()) if (!next.has(code)) removed.push(code);
    this.sent = next;
    const point = this.history[this.history.length - 1] ?? 0;
    const diff = sseMessage('diff', JSON.stringify({ serverTime: now, changed, removed, totals, point }));
    let full: string | null = null;
    for (const client of this.clients) {
      if (!client.ready) continue; // its first snapshot waits for the summaries
      if (client.stream.closed || client.stream.congested) {
        client.needsFull = true; // skip; a full snapshot once drained
        continue;
      }
      if (client.needsFull) {
        full ??= sseMessage('full', JSON.stringify({ serverTime: now, matches: rows, totals, history: { intervalMs: DASHBOARD_SAMPLE_MS, framesPerSecond: [...this.history] } }));
        this.sendFull(client, full);
      } else if (!client.stream.write(diff)) {
        client.needsFull = true;
      }
    }
    this.lastUpdateMs = performance.now() - started;
  }

  close(): void {
    clearInterval(this.timer);
    for (const client of this.clients) client.stream.end();
    this.clients.clear();
  }
}

/** One server-sent event (the data is one line of JSON). */
export function sseMessage(event: string, data: string): string {
  return `event: ${event}\ndata: ${data}\n\n`;
}
