// GET /metrics in the Prometheus text format (prom-client), on its own listener (METRICS_HOST,
// 127.0.0.1 by default: not public by accident). Each service has its own registry. Most values
// are read from the components' counters at scrape time; the shards' running totals are kept
// across restarts by shards/totals.ts (the dashboard reads the same), and the per-cycle
// histograms and outbound calls come as events (base/events.ts).
// Every metric is listed in the README ("Metrics"). Labels only take bounded values.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import client from 'prom-client';
import type { BroadcastServer } from '../broadcast/server.js';
import type { Config } from '../base/config.js';
import type { MainEventBus, OutboundOutcome } from '../base/events.js';
import type { IngestServer } from '../ingest/server.js';
import { METRICS_REQUEST_TIMEOUT_MS } from '../base/limits.js';
import type { Logger } from '../base/log.js';
import type { LoopBeat } from '../base/loop-beat.js';
import { DEFAULT_COLLECTOR_RESOLUTION_MS, registerLoopDelay } from './loop-delay.js';
import type { Cluster, MatchDirectory, PublishCounters, ShardRecovery } from '../matches/index.js';
import type { ShardTotals } from '../shards/totals.js';
import type { Listeners } from '../sockets/listeners.js';
import { registerStandbyMetrics, type StandbyRelay } from '../standby/index.js';

export interface MetricsDeps {
  config: Config;
  log: Logger;
  /** The main thread's heartbeat: its event-loop delay (loop-delay.ts). */
  beat: Pick<LoopBeat, 'takeDelays'>;
  events: MainEventBus;
  directory: MatchDirectory;
  published: PublishCounters;
  shardTotals: ShardTotals;
  recovery: ShardRecovery;
  ingest: IngestServer;
  broadcast: BroadcastServer;
  /** REDIS_URL: the cluster's state and counters (ods_redis_*, ods_cluster_*). */
  cluster?: Cluster | null;
  /** TCP connections per listener, refusals, descriptors (sockets/listeners.ts). */
  listeners?: Listeners;
  /** The standby observers and the links' health (standby/metrics.ts). */
  standby?: { relay: StandbyRelay; silentMatches?: () => number };
  /** Live scheduled matches flagged as not the fixture's (schedule/keeper.ts). */
  fixtureMismatches?: () => number;
}

const FAILURES: ReadonlySet<OutboundOutcome> = new Set(['5xx', 'timeout', 'network', 'too-large']);

export class Metrics {
  readonly registry = new client.Registry();
  private server: http.Server | null = null;
  private readonly unsubscribe: Array<() => void> = [];

  constructor(private readonly deps: MetricsDeps) {
    const r = this.registry;
    const { directory, published, shardTotals, recovery, ingest, broadcast, events } = deps;
    client.collectDefaultMetrics({ register: r, prefix: 'ods_', eventLoopMonitoringPrecision: DEFAULT_COLLECTOR_RESOLUTION_MS });
    registerLoopDelay(r, 'ods_', deps.beat);
    if (deps.standby) registerStandbyMetrics(r, deps.standby.relay, deps.standby.silentMatches);
    const mismatches = deps.fixtureMismatches;
    if (mismatches) new client.Gauge({ name: 'ods_fixture_mismatches', help: 'Live matches on a scheduled group code flagged as not the fixture\'s (other team names typed, other players in the game)', registers: [r], collect() { this.set(mismatches()); } });

    const set = (counter: client.Counter<string>, values: Record<string, number>, label: string) => {
      counter.reset();
      for (const [k, v] of Object.entries(values)) counter.inc({ [label]: k }, v);
    };

    new client.Gauge({ name: 'ods_live_matches', help: 'Live matches', registers: [r], collect() { this.set(directory.count()); } });
    new client.Gauge({
      name: 'ods_sockets', help: 'Open Socket.IO sockets by listener and kind', labelNames: ['listener', 'kind'], registers: [r],
      collect() {
        this.reset();
        for (const [kind, n] of Object.entries(ingest.socketCounts())) this.set({ listener: 'ingest', kind }, n);
        for (const [kind, n] of Object.entries(broadcast.socketCounts())) this.set({ listener: 'broadcast', kind }, n);
      },
    });
    new client.Counter({
      name: 'ods_messages_received_total', help: 'Events received on the ingestion listener, by event name (unknown names as "other")', labelNames: ['event'], registers: [r],
      collect() { set(this, ingest.eventsIn, 'event'); },
    });
    new client.Gauge({ name: 'ods_ingest_backlog_messages', help: 'Events received on the ingestion listener and waiting for their socket\'s budget (INGEST_BACKLOG_PER_SOCKET)', registers: [r], collect() { this.set(ingest.backlogWaiting()); } });
    new client.Counter({ name: 'ods_messages_queued_total', help: 'Events that waited in their socket\'s backlog instead of being shed', registers: [r], collect() { this.reset(); this.inc(ingest.backlogFigures.queued); } });
    const applied = shardTotals.applied;
    new client.Counter({
      name: 'ods_messages_applied_total', help: 'Messages applied to a match by the shards, by envelope type', labelNames: ['type'], registers: [r],
      collect() { set(this, applied, 'type'); },
    });
    new client.Counter({
      name: 'ods_messages_sent_total', help: 'Events sent to clients, by event name (match_data: every delivery to an overlay)', labelNames: ['event'], registers: [r],
      collect() { set(this, { ...ingest.eventsOut, match_data: broadcast.counters.deliveries }, 'event'); },
    });
    const shardDropped = shardTotals.dropped;
    new client.Counter({
      name: 'ods_messages_dropped_total', help: 'Messages ignored or refused, by reason (main thread and shards)', labelNames: ['reason'], registers: [r],
      collect() {
        const total: Record<string, number> = { ...shardDropped };
        for (const [k, v] of Object.entries(ingest.dropped)) total[k] = (total[k] ?? 0) + v;
        set(this, total, 'reason');
      },
    });
    new client.Counter({ name: 'ods_frames_published_total', help: 'match_data frames produced by the shards (one per match per change, before fan-out)', registers: [r], collect() { this.reset(); this.inc(published.framesPublished); } });
    new client.Counter({
      name: 'ods_frames_sent_total', help: 'match_data deliveries to overlays, by form (delta, keyframe, plain, polling)', labelNames: ['form'], registers: [r],
      collect() { const c = broadcast.counters; set(this, { delta: c.deltas, keyframe: c.keyframes, plain: c.plain, polling: c.polling }, 'form'); },
    });
    new client.Counter({ name: 'ods_frames_skipped_total', help: 'Frames not sent to an overlay that was not reading (it gets the latest once drained)', registers: [r], collect() { this.reset(); this.inc(broadcast.counters.skipped); } });
    new client.Gauge({ name: 'ods_frontend_buffered_bytes_max', help: 'The most bytes queued in any overlay\'s WebSocket now (frames are skipped for an overlay past FRONTEND_MAX_BUFFERED_BYTES)', registers: [r], collect() { this.set(broadcast.maxBufferedBytes()); } });
    new client.Counter({ name: 'ods_bytes_sent_total', help: 'match_data bytes written to overlay sockets (compressed where compressed)', registers: [r], collect() { this.reset(); this.inc(broadcast.counters.bytes); } });
    new client.Counter({
      name: 'ods_sockets_closed_total', help: 'Sockets closed by the service, by listener and reason', labelNames: ['listener', 'reason'], registers: [r],
      collect() {
        this.reset();
        this.inc({ listener: 'ingest', reason: 'idle' }, ingest.closed.idle);
        this.inc({ listener: 'ingest', reason: 'capacity' }, ingest.closed.capacity);
        this.inc({ listener: 'ingest', reason: 'session_lookup' }, ingest.closed.lookup);
        this.inc({ listener: 'broadcast', reason: 'idle' }, broadcast.closed.idle);
        this.inc({ listener: 'broadcast', reason: 'misbehaving' }, broadcast.closed.misbehaving);
      },
    });
    new client.Counter({
      name: 'ods_connections_refused_total', help: 'Handshakes refused at MAX_SOCKETS_PER_ADDRESS, by listener', labelNames: ['listener'], registers: [r],
      collect() { this.reset(); this.inc({ listener: 'ingest' }, ingest.addresses.refused); this.inc({ listener: 'broadcast' }, broadcast.addresses.refused); },
    });
    if (deps.listeners) registerConnectionMetrics(r, deps.listeners);
    const cluster = deps.cluster;
    if (cluster) {
      new client.Gauge({ name: 'ods_redis_up', help: 'Whether Redis is reachable (both connections up and the pub/sub probe answered): 1 or 0', registers: [r], collect() { this.set(cluster.redisUp ? 1 : 0); } });
      new client.Gauge({ name: 'ods_cluster_matches_local', help: 'Live matches this node runs (ods_live_matches counts every node\'s)', registers: [r], collect() { this.set(cluster.localMatches()); } });
      new client.Counter({
        name: 'ods_cluster_events_total', help: 'Scale-out events on this node: matches adopted from a gone node, the outputs of an ended one adopted (outputs_adopted), evicted (another node owns them), re-asserted after Redis lost them, lost without a snapshot', labelNames: ['event'], registers: [r],
        collect() { const t = cluster.takeover.stats; set(this, { adopted: t.adopted, outputs_adopted: t.outputsAdopted, evicted: t.evicted, reasserted: t.reasserted, lost_without_snapshot: t.lostWithoutSnapshot }, 'event'); },
      });
      new client.Counter({
        name: 'ods_cluster_forwarded_total', help: 'Ingestion messages for matches another node runs: sent to their owner, held while no node ran the match, redelivered, dropped', labelNames: ['outcome'], registers: [r],
        collect() { const f = cluster.deliveryStats; set(this, { sent: f.sent, held: f.held, redelivered: f.redelivered, dropped: f.dropped }, 'outcome'); },
      });
      new client.Counter({
        name: 'ods_cluster_frames_total', help: 'Frames through Redis on this node: framesPublished, deltasPublished, keyframesPublished, keyframesAnswered, publishFailed (as owner); framesReceived, keyframesRequested, keyframesReceived, gaps, noBase, droppedStale, badDeltas (as watcher)', labelNames: ['kind'], registers: [r],
        collect() { set(this, cluster.frameStats(), 'kind'); },
      });
      new client.Counter({ name: 'ods_cluster_frame_bytes_published_total', help: 'Bytes this node published through Redis for its matches\' frames', registers: [r], collect() { this.reset(); this.inc(cluster.frameBytesPublished()); } });
    }
    new client.Counter({ name: 'ods_shard_restarts_total', help: 'Shard threads that died and were restarted', registers: [r], collect() { this.reset(); this.inc(recovery.counters.crashes); } });
    new client.Counter({ name: 'ods_matches_restored_total', help: 'Matches rebuilt after a shard restart', registers: [r], collect() { this.reset(); this.inc(recovery.counters.restored); } });
    new client.Counter({ name: 'ods_matches_lost_total', help: 'Matches lost with a shard (no snapshot to rebuild them from)', registers: [r], collect() { this.reset(); this.inc(recovery.counters.lost); } });

    const cycle = new client.Histogram({
      name: 'ods_shard_cycle_duration_seconds', help: 'Duration of each shard cycle (timers, inactivity, due frames)', labelNames: ['shard'], registers: [r],
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
    });
    const shardLoop = new client.Gauge({ name: 'ods_shard_event_loop_delay_seconds', help: 'Event-loop delay of each shard thread over the last second: how late its cycle timer fired (0 when on time)', labelNames: ['shard', 'stat'], registers: [r] });
    new client.Gauge({
      name: 'ods_shard_matches', help: 'Live matches per shard', labelNames: ['shard'], registers: [r],
      collect() { this.reset(); shardTotals.latest.forEach((s, i) => { if (s) this.set({ shard: String(i) }, s.matches); }); },
    });
    this.unsubscribe.push(events.on('shardStats', ({ shard, stats }) => {
      for (const us of stats.cycles ?? []) cycle.observe({ shard: String(shard) }, us / 1e6);
      shardLoop.set({ shard: String(shard), stat: 'p99' }, (stats.loopDelayP99Ms ?? 0) / 1000);
      shardLoop.set({ shard: String(shard), stat: 'max' }, (stats.loopDelayMaxMs ?? 0) / 1000);
    }));

    const duration = new client.Histogram({
      name: 'ods_backend_call_duration_seconds', help: 'Outbound call duration, by call', labelNames: ['call'], registers: [r],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    });
    const calls = new client.Counter({ name: 'ods_backend_calls_total', help: 'Outbound calls by call and outcome (2xx..5xx, timeout, network, too-large)', labelNames: ['call', 'outcome'], registers: [r] });
    const failures = new client.Counter({ name: 'ods_backend_call_failures_total', help: 'Outbound calls that failed (5xx, timeout, network, too-large), by call', labelNames: ['call'], registers: [r] });
    this.unsubscribe.push(events.on('outboundCall', ({ label: call, seconds, outcome }) => {
      duration.observe({ call }, seconds);
      calls.inc({ call, outcome });
      if (FAILURES.has(outcome)) failures.inc({ call });
    }));
  }

  /** Serves GET /metrics on METRICS_HOST:METRICS_PORT; resolves with the bound port. */
  listen(): Promise<number> {
    const { config, log } = this.deps;
    const server = http.createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"Not found"}');
        return;
      }
      this.registry.metrics().then(
        (text) => res.writeHead(200, { 'Content-Type': this.registry.contentType }).end(text),
        (err: Error) => {
          log.error({ module: 'metrics', error: err.message }, 'metrics collection failed');
          res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":"metrics collection failed"}');
        },
      );
    });
    server.headersTimeout = METRICS_REQUEST_TIMEOUT_MS;
    server.requestTimeout = METRICS_REQUEST_TIMEOUT_MS;
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.METRICS_PORT, config.METRICS_HOST, () => {
        server.off('error', reject);
        resolve((server.address() as AddressInfo).port);
      });
    });
  }

  async close(): Promise<void> {
    for (const off of this.unsubscribe.splice(0)) off();
    const server = this.server;
    this.server = null;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }
}

/** Raw TCP connections and descriptors (docs/reliability.md, "Connection abuse"). */
function registerConnectionMetrics(r: client.Registry, listeners: Listeners): void {
  const guards = Object.values(listeners.guards);
  const watch = listeners.descriptors;
  new client.Gauge({ name: 'ods_tcp_connections', help: 'Open TCP connections by listener (WebSockets, HTTP, and connections that have not sent a request yet)', labelNames: ['listener'], registers: [r], collect() { this.reset(); for (const g of guards) this.set({ listener: g.listener }, g.open); } });
  new client.Counter({
    name: 'ods_tcp_connections_refused_total', help: 'TCP connections closed at once, by listener and reason: address (MAX_CONNECTIONS_PER_ADDRESS), descriptors (the process was out of file descriptors)', labelNames: ['listener', 'reason'], registers: [r],
    collect() { this.reset(); for (const g of guards) for (const [reason, n] of Object.entries(g.refused)) this.inc({ listener: g.listener, reason }, n); },
  });
  new client.Counter({
    name: 'ods_address_buckets_dropped_total', help: 'Addresses the uWS ports\' connection buckets dropped before they refilled, because 100,000 addresses were tracked (each dropped one regains at most its small deficit)', labelNames: ['listener'], registers: [r],
    collect() { this.reset(); for (const g of guards) if (g.listener !== 'broadcast') this.inc({ listener: g.listener }, g.buckets.evictions.unrefilled); },
  });
  new client.Counter({ name: 'ods_head_timeouts_total', help: 'Broadcast connections closed because no complete request head arrived within REQUEST_HEAD_TIMEOUT_MS (the uWS ports close theirs without telling)', registers: [r], collect() { this.reset(); this.inc(listeners.headTimeouts.closed); } });
  new client.Counter({ name: 'ods_accept_errors_total', help: 'accept() errors node reported on the broadcast listener (EMFILE/ENFILE), by listener', labelNames: ['listener'], registers: [r], collect() { this.reset(); for (const [l, n] of Object.entries(watch.acceptErrors)) this.inc({ listener: l }, n); } });
  new client.Counter({ name: 'ods_descriptor_exhaustions_total', help: 'Times the process ran out of file descriptors (new connections were closed at once until enough were free)', registers: [r], collect() { this.reset(); this.inc(watch.exhaustions); } });
  new client.Gauge({ name: 'ods_descriptors_exhausted', help: '1 while the process is out of file descriptors (new connections are closed at once)', registers: [r], collect() { this.set(watch.paused ? 1 : 0); } });
  // Open descriptors and the limit: ods_process_open_fds and ods_process_max_fds (prom-client's default metrics).
}
